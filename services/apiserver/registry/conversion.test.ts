import { describe, expect, it } from "vitest";
import type { WatchEvent, Watcher } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";
import { VersionView } from "./conversion.ts";

const view = () => {
  let calls = 0;
  const v = new VersionView({
    toStorage: (o) => ({ ...o, form: "storage" }),
    fromStorage: (o) => {
      calls++;
      return { ...o, form: "request" };
    },
  });
  return { v, calls: () => calls };
};

describe("VersionView", () => {
  it("converts a shared object once and hands out the same result", () => {
    const { v, calls } = view();
    const stored: JsonObject = { metadata: { name: "a" } };
    const first = v.fromShared(stored);
    expect(first).toEqual({ metadata: { name: "a" }, form: "request" });
    expect(v.fromShared(stored)).toBe(first);
    expect(calls()).toBe(1);
    expect(v.fromShared({ ...stored })).not.toBe(first);
  });

  it("converts change events of a watcher and passes bookmarks and errors through", async () => {
    const { v } = view();
    const queue: WatchEvent[] = [
      { type: "ADDED", object: { metadata: { name: "a" } }, revision: 1 },
      { type: "BOOKMARK", object: { metadata: { resourceVersion: "2" } }, revision: 2 },
      { type: "ERROR", object: { kind: "Status" }, revision: 0 },
    ];
    let stopped = false;
    const inner: Watcher = { next: () => Promise.resolve(queue.shift()), stop: () => void (stopped = true), closedReason: "cache reset" };
    const w = v.watcher(inner);
    expect((await w.next())?.object).toEqual({ metadata: { name: "a" }, form: "request" });
    expect((await w.next())?.object).toEqual({ metadata: { resourceVersion: "2" } });
    expect((await w.next())?.object).toEqual({ kind: "Status" });
    expect(await w.next()).toBeUndefined();
    w.stop();
    expect(stopped).toBe(true);
    expect(w.closedReason).toBe("cache reset");
  });
});
