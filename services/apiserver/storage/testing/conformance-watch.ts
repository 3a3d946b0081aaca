/**
 * Conformance families of watches, after the platform's store tests: from a revision
 * (every later change once, in order; history replayed), from 0 and unset (the current
 * state first), DELETED events carrying the last state at the deletion's revision,
 * initial events ended by a bookmark, filtered watches (objects entering and leaving
 * the selection), scoping to a key prefix, stopping, and a compacted start.
 */
import { expect, it } from "vitest";
import { StorageError } from "../interface.ts";
import { meta, type JsonObject } from "../object.ts";
import { cm, dataOf, describeEvents, nextEvents, quietFor, rvOf, withData, type ConformanceCase } from "./conformance-support.ts";

export function watchCases(c: ConformanceCase): void {
  it("watches from a revision: every later change once, in order, with DELETED carrying the last state", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    const w = await s.watch(P, { resourceVersion: String(rvOf(a)) });
    await s.guaranteedUpdate(`${P}ns/a`, withData({ v: "2" }));
    await s.create(`${P}ns/b`, cm("b"));
    const deleted = await s.delete(`${P}ns/a`);
    const evs = await nextEvents(w, 3);
    expect(describeEvents(evs)).toEqual(["MODIFIED:a", "ADDED:b", "DELETED:a"]);
    expect(dataOf(evs[2].object).v).toBe("2");
    // The deleted object is reported at the revision of its deletion.
    expect(rvOf(evs[2].object)).toBe(rvOf(deleted));
    const revs = evs.map((e) => rvOf(e.object));
    expect([...revs].sort((x, y) => x - y)).toEqual(revs);
    expect(new Set(revs).size).toBe(3);
    w.stop();
  });

  it("replays history for a watch started in the past", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    await s.create(`${P}ns/b`, cm("b"));
    await s.create(`${P}ns/c`, cm("c"));
    const w = await s.watch(P, { resourceVersion: String(rvOf(a)) });
    const evs = await nextEvents(w, 2);
    expect(evs.map((e) => meta(e.object).name)).toEqual(["b", "c"]);
    w.stop();
  });

  it("starts a watch without a version with ADDED events for the current state", async () => {
    const s = await c.setup();
    const P = c.prefix();
    await s.create(`${P}ns/a`, cm("a"));
    await s.create(`${P}ns/b`, cm("b"));
    const w = await s.watch(P, {});
    const initial = await nextEvents(w, 2);
    expect(describeEvents(initial).sort()).toEqual(["ADDED:a", "ADDED:b"]);
    await s.create(`${P}ns/c`, cm("c"));
    expect(describeEvents(await nextEvents(w, 1))).toEqual(["ADDED:c"]);
    w.stop();
  });

  it("starts a watch at resourceVersion 0 with the state it holds, then every later change", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    // A cache may serve "0" from any state it holds: reading "not older than" the create first makes it hold `a`.
    await s.get(`${P}ns/a`, { resourceVersion: String(rvOf(a)) });
    const w = await s.watch(P, { resourceVersion: "0" });
    const initial = await nextEvents(w, 1);
    expect(describeEvents(initial)).toEqual(["ADDED:a"]);
    await s.guaranteedUpdate(`${P}ns/a`, withData({ v: "1" }));
    const [modified] = await nextEvents(w, 1);
    expect(modified.type).toBe("MODIFIED");
    expect(dataOf(modified.object)).toEqual({ v: "1" });
    w.stop();
  });

  it("sends the initial events then a bookmark when asked (sendInitialEvents)", async () => {
    const s = await c.setup();
    const P = c.prefix();
    await s.create(`${P}ns/a`, cm("a"));
    const w = await s.watch(P, { resourceVersion: "", sendInitialEvents: true, allowWatchBookmarks: true, resourceVersionMatch: "NotOlderThan" });
    const evs = await nextEvents(w, 2);
    expect(evs[0].type).toBe("ADDED");
    expect(evs[1].type).toBe("BOOKMARK");
    expect(Number(meta(evs[1].object).resourceVersion)).toBeGreaterThanOrEqual(rvOf(evs[0].object));
    w.stop();
  });

  it("starts a watch without a version at the current state when initial events are refused (sendInitialEvents=false)", async () => {
    const s = await c.setup();
    const P = c.prefix();
    await s.create(`${P}ns/a`, cm("a"));
    const w = await s.watch(P, { resourceVersion: "", sendInitialEvents: false, resourceVersionMatch: "NotOlderThan" });
    await s.create(`${P}ns/b`, cm("b"));
    // Only the change made after the watch started: no ADDED for the existing object, no replay.
    expect(describeEvents(await nextEvents(w, 1))).toEqual(["ADDED:b"]);
    w.stop();
  });

  it("sends only the matching initial objects of a filtered watch, then the bookmark", async () => {
    const s = await c.setup();
    const P = c.prefix();
    await s.create(`${P}ns/a`, cm("a", {}, { app: "x" }));
    await s.create(`${P}ns/b`, cm("b", {}, { app: "y" }));
    await s.create(`${P}ns/c`, cm("c", {}, { app: "x" }));
    const w = await s.watch(P, {
      resourceVersion: "",
      sendInitialEvents: true,
      allowWatchBookmarks: true,
      resourceVersionMatch: "NotOlderThan",
      predicate: (o) => meta(o).labels?.app === "x",
    });
    const evs = await nextEvents(w, 3);
    expect(describeEvents(evs.slice(0, 2)).sort()).toEqual(["ADDED:a", "ADDED:c"]);
    expect(evs[2].type).toBe("BOOKMARK");
    w.stop();
  });

  it("turns label changes into ADDED and DELETED for a filtered watch", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a", {}, { app: "x" }));
    const w = await s.watch(P, { resourceVersion: String(rvOf(a)), predicate: (o) => meta(o).labels?.app === "y" });
    const relabel = (app: string) => (cur: JsonObject | undefined) => ({ ...(cur as JsonObject), metadata: { ...meta(cur as JsonObject), labels: { app } } });
    await s.guaranteedUpdate(`${P}ns/a`, relabel("y"));
    await s.guaranteedUpdate(`${P}ns/a`, withData({ z: "1" }));
    await s.guaranteedUpdate(`${P}ns/a`, relabel("x"));
    const evs = await nextEvents(w, 3);
    expect(evs.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    w.stop();
  });

  it("sees only the keys under the prefix it watches", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const start = await s.create(`${P}other/x`, cm("x", {}, {}, "other"));
    const w = await s.watch(`${P}ns/`, { resourceVersion: String(rvOf(start)) });
    await s.create(`${P}other/y`, cm("y", {}, {}, "other"));
    await s.create(`${P}ns/a`, cm("a"));
    await s.guaranteedUpdate(`${P}other/x`, withData({ v: "1" }));
    await s.delete(`${P}ns/a`);
    const evs = await nextEvents(w, 2);
    expect(describeEvents(evs)).toEqual(["ADDED:a", "DELETED:a"]);
    expect(await quietFor(w, 300)).toBeUndefined();
    w.stop();
  });

  it("ends a stopped watch: next() gives undefined and later changes are not delivered", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    const w = await s.watch(P, { resourceVersion: String(rvOf(a)) });
    await s.create(`${P}ns/b`, cm("b"));
    expect(describeEvents(await nextEvents(w, 1))).toEqual(["ADDED:b"]);
    w.stop();
    await s.create(`${P}ns/c`, cm("c"));
    expect(await w.next()).toBeUndefined();
  });

  if (c.excluded.compactedWatch) process.stdout.write(`storage conformance: compacted-watch case not run: ${c.excluded.compactedWatch}\n`);
  it.runIf(!c.excluded.compactedWatch)("fails a watch from a compacted revision with Gone or an ERROR event", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    for (let i = 0; i < 3; i++) await s.guaranteedUpdate(`${P}ns/a`, withData({ i: String(i) }));
    const current = await s.currentRevision();
    await c.fixture().kv.compact(current);
    const outcome = await s.watch(P, { resourceVersion: String(rvOf(a)) }).then(
      async (w) => {
        const [ev] = await nextEvents(w, 1, 20_000);
        return ev.type === "ERROR" ? (ev.object.code as number) : `event ${ev.type}`;
      },
      (err: unknown) => (err instanceof StorageError ? err.code : String(err)),
    );
    expect([410, "Gone"]).toContain(outcome);
  }, 30_000);
}
