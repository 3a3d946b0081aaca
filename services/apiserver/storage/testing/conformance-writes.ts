/**
 * Conformance families of single objects, after the platform's store tests: Create
 * (with a TTL, dry run, a resourceVersion refused), Get with resourceVersion
 * semantics, GuaranteedUpdate (no-op, preconditions, conflict retries, contention,
 * dry run, errors of tryUpdate, with a suggestion) and Delete (preconditions
 * uid/resourceVersion, validation re-run on conflict, dry run, with a suggestion).
 */
import { expect, it } from "vitest";
import { StorageError } from "../interface.ts";
import { meta, type JsonObject } from "../object.ts";
import { cm, dataOf, expectStorageError, rvOf, until, withData, type ConformanceCase } from "./conformance-support.ts";

export function createAndGetCases(c: ConformanceCase): void {
  it("creates with a fresh resourceVersion and refuses a second create of the same key", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    expect(rvOf(a)).toBeGreaterThan(0);
    await expectStorageError(s.create(`${P}ns/a`, cm("a")), "KeyExists");
    const got = await s.get(`${P}ns/a`);
    expect(meta(got).resourceVersion).toBe(meta(a).resourceVersion);
    await expectStorageError(s.get(`${P}ns/missing`), "NotFound");
  });

  it("refuses to create an object that carries a resourceVersion (InvalidObj)", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const withVersion = { ...cm("a"), metadata: { name: "a", namespace: "ns", resourceVersion: "5" } };
    await expectStorageError(s.create(`${P}ns/a`, withVersion), "InvalidObj");
    await expectStorageError(s.get(`${P}ns/a`), "NotFound");
  });

  it("stores nothing for a dry-run create, and still reports an existing key", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const dry = await s.create(`${P}ns/a`, cm("a", { k: "v" }), { dryRun: true });
    expect(dataOf(dry)).toEqual({ k: "v" });
    await expectStorageError(s.get(`${P}ns/a`), "NotFound");
    const real = await s.create(`${P}ns/a`, cm("a"));
    await expectStorageError(s.create(`${P}ns/a`, cm("a"), { dryRun: true }), "KeyExists");
    expect(rvOf(await s.get(`${P}ns/a`, { resourceVersion: String(rvOf(real)) }))).toBe(rvOf(real));
  });

  it("creates with a TTL: the object disappears once its lease expires", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const leased = await s.create(`${P}ns/leased`, cm("leased"), { ttlSeconds: 1 });
    const kept = await s.create(`${P}ns/kept`, cm("kept"));
    const gone = await until(async () => {
      const err = await s.get(`${P}ns/leased`).then(
        () => undefined,
        (e: unknown) => e,
      );
      return err instanceof StorageError && err.code === "NotFound";
    }, 15_000);
    expect(gone, `object with a 1 s TTL (rv ${rvOf(leased)}) still there after 15 s`).toBe(true);
    expect(meta(await s.get(`${P}ns/kept`)).resourceVersion).toBe(meta(kept).resourceVersion);
  }, 30_000);

  it("answers get at resourceVersion 0, unset and not-older-than; too large is 504-class", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    // Not older than the create first: "0" (any version) may be served by a cache that has not seen it yet.
    expect(meta(await s.get(`${P}ns/a`, { resourceVersion: String(rvOf(a)) })).name).toBe("a");
    expect((await s.get(`${P}ns/a`, { resourceVersion: "0" })).data).toEqual({});
    const err = await expectStorageError(s.get(`${P}ns/a`, { resourceVersion: String(rvOf(a) + 1000) }), "TooLargeResourceVersion");
    expect(err.message).toMatch(/Too large resource version/);
  });

  it("gets the latest state after an update, whatever the version asked for is not newer than", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a", { v: "1" }));
    const b = await s.guaranteedUpdate(`${P}ns/a`, withData({ v: "2" }));
    for (const resourceVersion of ["", String(rvOf(a)), String(rvOf(b))]) {
      const got = await s.get(`${P}ns/a`, { resourceVersion });
      expect(dataOf(got), `resourceVersion "${resourceVersion}"`).toEqual({ v: "2" });
      expect(rvOf(got)).toBe(rvOf(b));
    }
    await s.delete(`${P}ns/a`);
    await expectStorageError(s.get(`${P}ns/a`), "NotFound");
  });
}

export function guaranteedUpdateCases(c: ConformanceCase): void {
  it("updates with optimistic concurrency; a no-op update keeps the resourceVersion", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a", { k: "1" }));
    const b = await s.guaranteedUpdate(`${P}ns/a`, withData({ k: "2" }));
    expect(rvOf(b)).toBeGreaterThan(rvOf(a));
    const same = await s.guaranteedUpdate(`${P}ns/a`, (cur) => cur);
    expect(rvOf(same)).toBe(rvOf(b));
    const unchanged = await s.guaranteedUpdate(`${P}ns/a`, () => undefined);
    expect(rvOf(unchanged)).toBe(rvOf(b));
    await expectStorageError(s.guaranteedUpdate(`${P}ns/a`, withData({ k: "3" }), { preconditions: { resourceVersion: String(rvOf(a)) } }), "Conflict");
    await expectStorageError(s.guaranteedUpdate(`${P}ns/none`, (cur) => cur), "NotFound");
    const created = await s.guaranteedUpdate(`${P}ns/new`, () => cm("new"), { ignoreNotFound: true });
    expect(meta(created).name).toBe("new");
    expect(rvOf(await s.get(`${P}ns/new`, { resourceVersion: String(rvOf(created)) }))).toBe(rvOf(created));
  });

  it("re-runs tryUpdate on the latest state when a concurrent write wins the race", async () => {
    const s = await c.setup();
    const P = c.prefix();
    await s.create(`${P}ns/a`, cm("a", { mine: "0", theirs: "0" }));
    const seen: Array<Record<string, string>> = [];
    const out = await s.guaranteedUpdate(`${P}ns/a`, async (cur) => {
      seen.push({ ...dataOf(cur as JsonObject) });
      // The first attempt is overtaken by another writer: its compare must fail.
      if (seen.length === 1) await s.guaranteedUpdate(`${P}ns/a`, (other) => ({ ...(other as JsonObject), data: { ...dataOf(other as JsonObject), theirs: "1" } }));
      return { ...(cur as JsonObject), data: { ...dataOf(cur as JsonObject), mine: "1" } };
    });
    expect(seen).toEqual([
      { mine: "0", theirs: "0" },
      { mine: "0", theirs: "1" },
    ]);
    expect(dataOf(out)).toEqual({ mine: "1", theirs: "1" });
    expect(dataOf(await s.get(`${P}ns/a`, { resourceVersion: String(rvOf(out)) }))).toEqual({ mine: "1", theirs: "1" });
  });

  it("loses no increment of 10 concurrent updates of one object", async () => {
    const s = await c.setup();
    const P = c.prefix();
    await s.create(`${P}ns/counter`, cm("counter", { n: "0" }));
    const results = await Promise.all(
      Array.from({ length: 10 }, () => s.guaranteedUpdate(`${P}ns/counter`, (cur) => withData({ n: String(Number(dataOf(cur as JsonObject).n) + 1) })(cur))),
    );
    const last = results.reduce((x, y) => (rvOf(x) > rvOf(y) ? x : y));
    expect(dataOf(last).n).toBe("10");
    expect(new Set(results.map(rvOf)).size).toBe(10);
    expect(dataOf(await s.get(`${P}ns/counter`, { resourceVersion: String(rvOf(last)) })).n).toBe("10");
  });

  it("refuses an update whose uid precondition does not match (PreconditionFailed)", async () => {
    const s = await c.setup();
    const P = c.prefix();
    await s.create(`${P}ns/a`, { ...cm("a"), metadata: { name: "a", namespace: "ns", uid: "u1" } });
    await expectStorageError(s.guaranteedUpdate(`${P}ns/a`, withData({ x: "1" }), { preconditions: { uid: "u2" } }), "PreconditionFailed");
    const ok = await s.guaranteedUpdate(`${P}ns/a`, withData({ x: "1" }), { preconditions: { uid: "u1" } });
    expect(dataOf(ok)).toEqual({ x: "1" });
  });

  it("returns the new state of a dry-run update without writing it", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a", { v: "1" }));
    const dry = await s.guaranteedUpdate(`${P}ns/a`, withData({ v: "2" }), { dryRun: true });
    expect(dataOf(dry)).toEqual({ v: "2" });
    const stored = await s.get(`${P}ns/a`, { resourceVersion: String(rvOf(a)) });
    expect(dataOf(stored)).toEqual({ v: "1" });
    expect(rvOf(stored)).toBe(rvOf(a));
  });

  it("gives an error of tryUpdate back unchanged and writes nothing", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a", { v: "1" }));
    const refusal = new Error("refused by the update function");
    await expect(
      s.guaranteedUpdate(`${P}ns/a`, () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(rvOf(await s.get(`${P}ns/a`, { resourceVersion: String(rvOf(a)) }))).toBe(rvOf(a));
  });
}

export function suggestionCases(c: ConformanceCase): void {
  it("updates from a current suggestion in one attempt, and re-runs a stale one on the store's state", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const v1 = await s.create(`${P}ns/a`, cm("a", { v: "1" }));
    const seen: string[] = [];
    const append = (cur: JsonObject | undefined) => {
      seen.push(dataOf(cur as JsonObject).v);
      return withData({ v: `${dataOf(cur as JsonObject).v}+` })(cur);
    };
    const v2 = await s.guaranteedUpdate(`${P}ns/a`, append, { suggestion: v1 });
    expect(seen).toEqual(["1"]);
    expect(dataOf(v2)).toEqual({ v: "1+" });
    seen.length = 0;
    const v3 = await s.guaranteedUpdate(`${P}ns/a`, append, { suggestion: v1 });
    expect(seen).toEqual(["1", "1+"]);
    expect(dataOf(v3)).toEqual({ v: "1+" + "+" });
    expect(rvOf(v3)).toBeGreaterThan(rvOf(v2));
    expect(dataOf(await s.get(`${P}ns/a`, { resourceVersion: String(rvOf(v3)) }))).toEqual({ v: "1++" });
  });

  it("re-checks on the store's state what a stale suggestion failed or left unchanged", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const v1 = await s.create(`${P}ns/a`, cm("a", { v: "1" }));
    const v2 = await s.guaranteedUpdate(`${P}ns/a`, withData({ v: "2" }));
    // The precondition names the current version: false of the stale copy, true of the store's state.
    const v3 = await s.guaranteedUpdate(`${P}ns/a`, withData({ v: "3" }), { suggestion: v1, preconditions: { resourceVersion: String(rvOf(v2)) } });
    expect(dataOf(v3)).toEqual({ v: "3" });
    // Unchanged against the stale copy is not unchanged: the answer is the store's state.
    const same = await s.guaranteedUpdate(`${P}ns/a`, (cur) => cur, { suggestion: v1 });
    expect(rvOf(same)).toBe(rvOf(v3));
    expect(dataOf(same)).toEqual({ v: "3" });
    // An error of tryUpdate on the stale copy: tried again on the store's state.
    const v4 = await s.guaranteedUpdate(
      `${P}ns/a`,
      (cur) => {
        if (dataOf(cur as JsonObject).v !== "3") throw new Error("stale");
        return withData({ v: "4" })(cur);
      },
      { suggestion: v1 },
    );
    expect(dataOf(v4)).toEqual({ v: "4" });
  });

  it("keeps the lease of an object updated from a suggestion (the copy does not know it)", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const leased = await s.create(`${P}ns/leased`, cm("leased", { v: "1" }), { ttlSeconds: 2 });
    const updated = await s.guaranteedUpdate(`${P}ns/leased`, withData({ v: "2" }), { suggestion: leased });
    expect(dataOf(updated)).toEqual({ v: "2" });
    const gone = await until(async () => {
      const err = await s.get(`${P}ns/leased`).then(
        () => undefined,
        (e: unknown) => e,
      );
      return err instanceof StorageError && err.code === "NotFound";
    }, 15_000);
    expect(gone, "an object updated from a suggestion outlived its lease").toBe(true);
  }, 30_000);

  it("deletes from a stale suggestion only after checking the store's state", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const v1 = await s.create(`${P}ns/a`, cm("a", { v: "1" }));
    const v2 = await s.guaranteedUpdate(`${P}ns/a`, withData({ v: "2" }));
    const checked: string[] = [];
    const deleted = await s.delete(`${P}ns/a`, {
      suggestion: v1,
      preconditions: { resourceVersion: String(rvOf(v2)) },
      validateDeletion: (cur) => {
        checked.push(dataOf(cur).v);
      },
    });
    expect(checked).toEqual(["2"]);
    expect(dataOf(deleted)).toEqual({ v: "2" });
    await expectStorageError(s.get(`${P}ns/a`), "NotFound");
    // Checks that pass on the stale copy: the delete's compare fails and the checks run again on the store's state.
    const b1 = await s.create(`${P}ns/b`, cm("b", { v: "1" }));
    await s.guaranteedUpdate(`${P}ns/b`, withData({ v: "2" }));
    const checkedB: string[] = [];
    const deletedB = await s.delete(`${P}ns/b`, { suggestion: b1, validateDeletion: (cur) => void checkedB.push(dataOf(cur).v) });
    expect(checkedB).toEqual(["1", "2"]);
    expect(dataOf(deletedB)).toEqual({ v: "2" });
  });
}

export function deleteCases(c: ConformanceCase): void {
  it("deletes with uid and resourceVersion preconditions", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, { ...cm("a"), metadata: { name: "a", namespace: "ns", uid: "u1" } });
    await expectStorageError(s.delete(`${P}ns/a`, { preconditions: { uid: "other" } }), "PreconditionFailed");
    await expectStorageError(s.delete(`${P}ns/a`, { preconditions: { resourceVersion: "1" } }), "Conflict");
    const gone = await s.delete(`${P}ns/a`, { preconditions: { uid: "u1", resourceVersion: meta(a).resourceVersion } });
    expect(meta(gone).name).toBe("a");
    expect(rvOf(gone)).toBeGreaterThan(rvOf(a));
    await expectStorageError(s.get(`${P}ns/a`), "NotFound");
    await expectStorageError(s.delete(`${P}ns/a`), "NotFound");
  });

  it("validates a deletion on the latest state: a refusal keeps the object, a conflict re-runs the check", async () => {
    const s = await c.setup();
    const P = c.prefix();
    await s.create(`${P}ns/a`, cm("a", { v: "1" }));
    const refusal = new Error("not deletable");
    await expect(
      s.delete(`${P}ns/a`, {
        validateDeletion: () => {
          throw refusal;
        },
      }),
    ).rejects.toBe(refusal);
    const checked: string[] = [];
    const deleted = await s.delete(`${P}ns/a`, {
      validateDeletion: async (current) => {
        checked.push(dataOf(current).v);
        // A write lands between the check and the delete: the delete must see it and check again.
        if (checked.length === 1) await s.guaranteedUpdate(`${P}ns/a`, withData({ v: "2" }));
      },
    });
    expect(checked).toEqual(["1", "2"]);
    expect(dataOf(deleted)).toEqual({ v: "2" });
    await expectStorageError(s.get(`${P}ns/a`), "NotFound");
  });

  it("keeps the object on a dry-run delete", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    const dry = await s.delete(`${P}ns/a`, { dryRun: true });
    expect(meta(dry).name).toBe("a");
    expect(rvOf(await s.get(`${P}ns/a`, { resourceVersion: String(rvOf(a)) }))).toBe(rvOf(a));
  });
}
