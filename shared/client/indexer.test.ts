import { describe, expect, it } from "vitest";
import { Indexer, NAMESPACE_INDEX, namespaceIndexFunc } from "./indexer.ts";
import type { ApiObject } from "./object-client.ts";

const obj = (namespace: string, name: string, tags: string[] = []): ApiObject => ({ metadata: { namespace, name, labels: Object.fromEntries(tags.map((t) => [t, "y"])) } });
const tagsOf = (o: ApiObject) => Object.keys(o.metadata.labels ?? {});

type Step = ["set", string, ApiObject] | ["delete", string];

describe("Indexer", () => {
  const rows: Array<{ name: string; steps: Step[]; byTag: Record<string, string[]>; byNamespace: Record<string, string[]> }> = [
    { name: "an object under several values", steps: [["set", "a/x", obj("a", "x", ["red", "blue"])]], byTag: { red: ["a/x"], blue: ["a/x"] }, byNamespace: { a: ["a/x"] } },
    { name: "an object under no value", steps: [["set", "a/x", obj("a", "x")]], byTag: {}, byNamespace: { a: ["a/x"] } },
    {
      name: "an update moves the object from its old values to its new ones",
      steps: [
        ["set", "a/x", obj("a", "x", ["red"])],
        ["set", "a/x", obj("a", "x", ["blue"])],
      ],
      byTag: { blue: ["a/x"] },
      byNamespace: { a: ["a/x"] },
    },
    {
      name: "a delete drops the object and values no object holds",
      steps: [
        ["set", "a/x", obj("a", "x", ["red"])],
        ["set", "b/y", obj("b", "y", ["red", "green"])],
        ["delete", "b/y"],
      ],
      byTag: { red: ["a/x"] },
      byNamespace: { a: ["a/x"] },
    },
    { name: "deleting an absent key changes nothing", steps: [["set", "a/x", obj("a", "x", ["red"])], ["delete", "a/z"]], byTag: { red: ["a/x"] }, byNamespace: { a: ["a/x"] } },
    { name: "a value returned twice is indexed once", steps: [["set", "x", { metadata: { name: "x", labels: { red: "y" } } }]], byTag: { red: ["x"] }, byNamespace: { "": ["x"] } },
    {
      name: "keys come back sorted",
      steps: [
        ["set", "b/y", obj("b", "y", ["red"])],
        ["set", "a/x", obj("a", "x", ["red"])],
      ],
      byTag: { red: ["a/x", "b/y"] },
      byNamespace: { a: ["a/x"], b: ["b/y"] },
    },
  ];
  it.each(rows)("$name", ({ steps, byTag, byNamespace }) => {
    const ix = new Indexer();
    ix.addIndexers({ tag: (o) => [...tagsOf(o), ...tagsOf(o)], [NAMESPACE_INDEX]: namespaceIndexFunc });
    for (const step of steps) {
      if (step[0] === "set") ix.set(step[1], step[2]);
      else ix.delete(step[1]);
    }
    expect(Object.fromEntries(ix.indexValues("tag").map((v) => [v, ix.indexKeys("tag", v)]))).toEqual(byTag);
    expect(Object.fromEntries(ix.indexValues(NAMESPACE_INDEX).map((v) => [v, ix.indexKeys(NAMESPACE_INDEX, v)]))).toEqual(byNamespace);
  });

  it("an index added later covers the objects held; names are not reused; unknown names are errors", () => {
    const ix = new Indexer();
    ix.set("a/x", obj("a", "x", ["red"]));
    ix.addIndexers({ tag: tagsOf });
    expect(ix.byIndex("tag", "red").map((o) => o.metadata.name)).toEqual(["x"]);
    expect(() => ix.addIndexers({ other: tagsOf, tag: tagsOf })).toThrow("indexer conflict: tag");
    expect(() => ix.indexKeys("other", "red")).toThrow("Index with name other does not exist");
    expect(ix.indexKeys("tag", "blue")).toEqual([]);
  });
});
