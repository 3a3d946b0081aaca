import { describe, expect, it } from "vitest";
import { validateImmutable } from "../../schema/index.ts";
import { admit, deleteAt, mutate, paths, setAt } from "../testing/sample-harness.ts";
import { kinds } from "./events-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const DIR = "events-v1";
const ev = byKind(kinds, "Event");
const sample = () => sampleOf(DIR, kinds, "Event");
const E = "Event";

sampleSuite({
  dir: DIR,
  kinds,
  defaults: { Event: { type: "Warning", "series.count": 5 } },
  mutations: [
    { name: "unknown nested field", kind: E, edit: (o) => setAt(o, "regarding.container", "frontend"), unknown: ["regarding.container"] },
    { name: "wrong type", kind: E, edit: (o) => setAt(o, "series.count", "5"), errors: ["series.count"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: E, edit: (o) => setAt(o, "metadata.name", "Pulled Image"), errors: ["metadata.name"] },
    { name: "bad type", kind: E, edit: (o) => setAt(o, "type", "Error"), errors: ["type"], types: ["FieldValueNotSupported"] },
    {
      name: "missing required fields on create",
      kind: E,
      edit: (o) => {
        for (const f of ["regarding", "eventTime", "reportingController", "reportingInstance", "action", "reason"]) deleteAt(o, f);
      },
      errors: ["regarding", "eventTime", "reportingController", "reportingInstance", "action", "reason"],
      types: Array(6).fill("FieldValueRequired"),
    },
    { name: "reason longer than 128 characters", kind: E, edit: (o) => setAt(o, "reason", "x".repeat(129)), errors: ["reason"] },
    { name: "note longer than 1 kB", kind: E, edit: (o) => setAt(o, "note", "x".repeat(1025)), errors: ["note"] },
    { name: "reporting controller not a qualified name", kind: E, edit: (o) => setAt(o, "reportingController", "node agent"), errors: ["reportingController"] },
    { name: "series of one", kind: E, edit: (o) => setAt(o, "series.count", 1), errors: ["series.count"] },
    { name: "series without last observed time", kind: E, edit: (o) => deleteAt(o, "series.lastObservedTime"), errors: ["series.lastObservedTime"] },
    {
      name: "deprecated fields set on create",
      kind: E,
      edit: (o) => {
        setAt(o, "deprecatedCount", 3);
        setAt(o, "deprecatedSource", { component: "kubelet" });
      },
      errors: ["deprecatedCount", "deprecatedSource"],
    },
  ],
});

describe("events/v1", () => {
  it("declares Event with the platform's field numbers", () => {
    expect([ev.plural, ev.shortNames, ev.namespaced, ev.subresources]).toEqual(["events", ["ev"], true, undefined]);
    const p = ev.schema.properties ?? {};
    expect(Object.fromEntries(["eventTime", "series", "reportingController", "reportingInstance", "action", "reason", "regarding", "related", "note", "type", "deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"].map((k) => [k, p[k].protoTag]))).toEqual({
      eventTime: 2,
      series: 3,
      reportingController: 4,
      reportingInstance: 5,
      action: 6,
      reason: 7,
      regarding: 8,
      related: 9,
      note: 10,
      type: 11,
      deprecatedSource: 12,
      deprecatedFirstTimestamp: 13,
      deprecatedLastTimestamp: 14,
      deprecatedCount: 15,
    });
    expect(p.series.properties?.lastObservedTime.protoTag).toBe(2);
  });

  it("allows only the series to change after creation", () => {
    const old = admit(ev, sample()).defaulted;
    const heartbeat = mutate(old, (o) => setAt(o, "series", { count: 6, lastObservedTime: "2024-05-01T10:06:00.000000Z" }));
    expect(validateImmutable(ev.schema, old, heartbeat)).toEqual([]);
    const rewritten = mutate(old, (o) => {
      setAt(o, "note", "changed");
      setAt(o, "regarding.name", "other");
    });
    expect(paths(validateImmutable(ev.schema, old, rewritten))).toEqual(["regarding", "note"]);
  });

  it("prints the platform's event columns", () => {
    expect((ev.tableColumns ?? []).map((c) => `${c.name}${c.priority ? "*" : ""}`)).toEqual([
      "Last Seen",
      "Type",
      "Reason",
      "Object",
      "Subobject*",
      "Source*",
      "Message",
      "First Seen*",
      "Count*",
    ]);
    const cells = (ev.tableColumns ?? []).map((c) => c.cell?.(sample()));
    expect([cells[1], cells[2], cells[3], cells[4], cells[8]]).toEqual(["Warning", "Failed", "pod/web-frontend-7d9c8f6b5c-x2k4p", "spec.containers{frontend}", 5]);
    expect(cells[5]).toBe(`${String(sample().reportingController)}, node-agent-worker-3`);
    const single = mutate(sample(), (o) => deleteAt(o, "series"));
    expect(ev.tableColumns?.[8].cell?.(single)).toBe(1);
  });
});
