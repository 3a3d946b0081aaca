/**
 * Conformance families of lists, after the platform's store tests: paging with limit
 * and continue at one revision (also under compaction and with a predicate), every
 * resourceVersion match (unset, Exact, NotOlderThan, a future revision), continue
 * tokens that are malformed, foreign or expired, and predicates; Count.
 */
import { expect, it } from "vitest";
import { encodeContinue } from "../continue-token.ts";
import type { Predicate } from "../interface.ts";
import { meta } from "../object.ts";
import { cm, expectStorageError, namesOf, rvOf, withData, type ConformanceCase } from "./conformance-support.ts";

const pad = (i: number) => `o${String(i).padStart(2, "0")}`;

export function listCases(c: ConformanceCase): void {
  it("counts the objects under a prefix as creates and deletes land, and none of another prefix", async () => {
    const s = await c.setup();
    const P = c.prefix();
    expect(await s.count(P)).toBe(0);
    for (let i = 0; i < 4; i++) await s.create(`${P}ns/${pad(i)}`, cm(pad(i)));
    await s.create(`${P}other/x`, cm("x", {}, {}, "other"));
    expect(await s.count(P)).toBe(5);
    expect(await s.count(`${P}ns/`)).toBe(4);
    await s.delete(`${P}ns/o00`);
    await s.guaranteedUpdate(`${P}ns/o01`, withData({ v: "1" }));
    expect(await s.count(`${P}ns/`)).toBe(3);
    expect(await s.count(`${P}none/`)).toBe(0);
  });

  it("pages a list at one revision with continue tokens while writes go on", async () => {
    const s = await c.setup();
    const P = c.prefix();
    for (let i = 0; i < 25; i++) await s.create(`${P}ns/${pad(i)}`, cm(pad(i)));
    const first = await s.list(P, { limit: 10 });
    expect(first.items).toHaveLength(10);
    expect(first.remainingItemCount).toBe(15);
    expect(first.continueToken).toBeTruthy();
    await s.create(`${P}ns/o99`, cm("o99"));
    await s.delete(`${P}ns/o20`);
    const seen = namesOf(first.items);
    let token = first.continueToken;
    while (token) {
      const page = await s.list(P, { limit: 10, continueToken: token });
      expect(page.resourceVersion).toBe(first.resourceVersion);
      seen.push(...namesOf(page.items));
      token = page.continueToken;
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => pad(i)));
    expect(seen).not.toContain("o99");
  });

  it("fills each page with matching objects when a predicate skips most of them", async () => {
    const s = await c.setup();
    const P = c.prefix();
    for (let i = 0; i < 20; i++) await s.create(`${P}ns/${pad(i)}`, cm(pad(i), {}, { even: String(i % 2 === 0) }));
    const predicate: Predicate = (o) => meta(o).labels?.even === "true";
    const pages: string[][] = [];
    let token: string | undefined;
    let revision: string | undefined;
    do {
      const page = await s.list(P, { limit: 3, continueToken: token, predicate, hasSelector: true });
      expect(page.remainingItemCount).toBeUndefined();
      revision ??= page.resourceVersion;
      expect(page.resourceVersion).toBe(revision);
      pages.push(namesOf(page.items));
      token = page.continueToken;
    } while (token);
    expect(pages.slice(0, -1).every((p) => p.length === 3)).toBe(true);
    expect(pages.flat()).toEqual(Array.from({ length: 10 }, (_, i) => pad(2 * i)));
  });

  it("lists exactly at a past revision and filters with a predicate", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a", {}, { app: "x" }));
    await s.create(`${P}ns/b`, cm("b", {}, { app: "y" }));
    const exact = await s.list(P, { resourceVersion: String(rvOf(a)), resourceVersionMatch: "Exact" });
    expect(exact.resourceVersion).toBe(String(rvOf(a)));
    expect(namesOf(exact.items)).toEqual(["a"]);
    const filtered = await s.list(P, { predicate: (o) => meta(o).labels?.app === "y", hasSelector: true });
    expect(namesOf(filtered.items)).toEqual(["b"]);
    const paged = await s.list(P, { limit: 1, predicate: (o) => meta(o).labels?.app === "x", hasSelector: true });
    expect(namesOf(paged.items)).toEqual(["a"]);
    expect(paged.remainingItemCount).toBeUndefined();
  });

  it("pages an Exact list at a past revision, every page at that revision", async () => {
    const s = await c.setup();
    const P = c.prefix();
    for (let i = 0; i < 5; i++) await s.create(`${P}ns/${pad(i)}`, cm(pad(i)));
    const at = await s.currentRevision();
    await s.create(`${P}ns/o05`, cm("o05"));
    await s.guaranteedUpdate(`${P}ns/o00`, withData({ later: "1" }));
    const first = await s.list(P, { resourceVersion: String(at), resourceVersionMatch: "Exact", limit: 2 });
    expect(first.resourceVersion).toBe(String(at));
    expect(first.remainingItemCount).toBe(3);
    const seen = [...first.items];
    let token = first.continueToken;
    while (token) {
      const page = await s.list(P, { limit: 2, continueToken: token });
      expect(page.resourceVersion).toBe(String(at));
      seen.push(...page.items);
      token = page.continueToken;
    }
    expect(namesOf(seen)).toEqual(["o00", "o01", "o02", "o03", "o04"]);
    expect(seen[0].data).toEqual({});
  });

  it("answers a NotOlderThan list with a state at least as new as the version asked for", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    const b = await s.create(`${P}ns/b`, cm("b"));
    const atA = await s.list(P, { resourceVersion: String(rvOf(a)), resourceVersionMatch: "NotOlderThan" });
    expect(Number(atA.resourceVersion)).toBeGreaterThanOrEqual(rvOf(a));
    expect(namesOf(atA.items)).toEqual(Number(atA.resourceVersion) >= rvOf(b) ? ["a", "b"] : ["a"]);
    const atB = await s.list(P, { resourceVersion: String(rvOf(b)), resourceVersionMatch: "NotOlderThan" });
    expect(Number(atB.resourceVersion)).toBeGreaterThanOrEqual(rvOf(b));
    expect(namesOf(atB.items)).toEqual(["a", "b"]);
    const latest = await s.list(P, {});
    expect(Number(latest.resourceVersion)).toBeGreaterThanOrEqual(rvOf(b));
    expect(namesOf(latest.items)).toEqual(["a", "b"]);
  });

  it("answers a list at a revision not reached yet with TooLargeResourceVersion, for every match", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    const future = String(rvOf(a) + 1000);
    await expectStorageError(s.list(P, { resourceVersion: future, resourceVersionMatch: "Exact" }), "TooLargeResourceVersion");
    await expectStorageError(s.list(P, { resourceVersion: future, resourceVersionMatch: "NotOlderThan" }), "TooLargeResourceVersion");
    await expectStorageError(s.list(P, { resourceVersion: future, limit: 5 }), "TooLargeResourceVersion");
  });

  it("reports Gone for an exact list below the compacted revision", async () => {
    const s = await c.setup();
    const P = c.prefix();
    const a = await s.create(`${P}ns/a`, cm("a"));
    const b = await s.guaranteedUpdate(`${P}ns/a`, withData({ x: "1" }));
    await c.fixture().kv.compact(rvOf(b));
    await expectStorageError(s.list(P, { resourceVersion: String(rvOf(a)), resourceVersionMatch: "Exact" }), "Gone");
    const atCompaction = await s.list(P, { resourceVersion: String(rvOf(b)), resourceVersionMatch: "Exact" });
    expect(namesOf(atCompaction.items)).toEqual(["a"]);
  });

  it("reports Gone for a continue token whose revision was compacted between pages", async () => {
    const s = await c.setup();
    const P = c.prefix();
    for (let i = 0; i < 3; i++) await s.create(`${P}ns/${pad(i)}`, cm(pad(i)));
    const first = await s.list(P, { limit: 1 });
    expect(first.continueToken).toBeTruthy();
    await s.guaranteedUpdate(`${P}ns/o00`, withData({ x: "1" }));
    await c.fixture().kv.compact(await s.currentRevision());
    await expectStorageError(s.list(P, { limit: 1, continueToken: first.continueToken }), "Gone");
  });

  it("refuses continue tokens that are malformed or of another collection (InvalidObj), and expired ones (Gone)", async () => {
    const s = await c.setup();
    const P = c.prefix();
    for (let i = 0; i < 3; i++) await s.create(`${P}ns/${pad(i)}`, cm(pad(i)));
    const first = await s.list(P, { limit: 1 });
    await expectStorageError(s.list(P, { limit: 1, continueToken: "not a token!" }), "InvalidObj");
    await expectStorageError(s.list(`${P}other/`, { limit: 1, continueToken: first.continueToken }), "InvalidObj");
    const expired = encodeContinue({ revision: Number(first.resourceVersion), startKey: `${P}ns/o01`, issuedAtMs: Date.now() - 60 * 60 * 1000 });
    await expectStorageError(s.list(P, { limit: 1, continueToken: expired }), "Gone");
  });
}
