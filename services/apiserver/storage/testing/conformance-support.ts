/**
 * What the storage conformance families share: the fixture contract, a fresh key
 * prefix per case (so one store may serve many cases: a real etcd cluster is started
 * once per file), object builders, and assertions on events and StorageErrors.
 */
import { expect } from "vitest";
import { StorageError, type ObjectStorage, type WatchEvent, type Watcher } from "../interface.ts";
import type { KvStore } from "../kv.ts";
import { meta, type JsonObject } from "../object.ts";

export interface StorageFixture {
  storage: ObjectStorage;
  kv: KvStore;
  close(): Promise<void>;
}

/** Cases a fixture does not run yet, each with the known defect that keeps it out. */
export interface ConformanceExclusions {
  compactedWatch?: string;
}

/** One case's view of the suite: a fresh storage and a collection prefix of its own. */
export interface ConformanceCase {
  /** Builds the fixture (closed after the case) and returns its storage. */
  setup(): Promise<ObjectStorage>;
  /** The fixture of the running case (after setup). */
  fixture(): StorageFixture;
  /** The collection prefix of the running case: `/registry/core/<unique resource>/`. */
  prefix(): string;
  excluded: ConformanceExclusions;
}

let caseCounter = 0;
const caseBase = Math.floor(Math.random() * 1e6);

/** A collection prefix no other case of this process uses. */
export function freshPrefix(): string {
  caseCounter++;
  return `/registry/core/conformance-${caseBase}-${caseCounter}/`;
}

export function cm(name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}, namespace = "ns"): JsonObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data };
}

export function rvOf(obj: JsonObject): number {
  return Number(meta(obj).resourceVersion);
}

export function dataOf(obj: JsonObject): Record<string, string> {
  return (obj.data ?? {}) as Record<string, string>;
}

/** `obj` with `data` replaced: the usual tryUpdate. */
export function withData(data: Record<string, string>): (cur: JsonObject | undefined) => JsonObject {
  return (cur) => ({ ...(cur as JsonObject), data });
}

export function namesOf(objs: JsonObject[]): string[] {
  return objs.map((o) => meta(o).name ?? "");
}

/** The next `n` events, failing after `timeoutMs` or when the watch closes. */
export async function nextEvents(w: Watcher, n: number, timeoutMs = 5000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < n) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`timed out after ${out.length}/${n} events: ${JSON.stringify(out.map((e) => e.type))}`);
    const ev = await Promise.race([w.next(), new Promise<"timeout">((r) => setTimeout(() => r("timeout"), remaining))]);
    if (ev === "timeout") continue;
    if (ev === undefined) throw new Error(`watch closed after ${out.length}/${n} events`);
    out.push(ev);
  }
  return out;
}

/** True when no event arrives within `ms` (the watch may also have closed). */
export async function quietFor(w: Watcher, ms: number): Promise<WatchEvent | undefined> {
  return Promise.race([w.next(), new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
}

export function describeEvents(evs: WatchEvent[]): string[] {
  return evs.map((e) => `${e.type}:${meta(e.object).name}`);
}

export async function expectStorageError(p: Promise<unknown>, code: StorageError["code"]): Promise<StorageError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected StorageError ${code}`).toBeInstanceOf(StorageError);
  expect((err as StorageError).code).toBe(code);
  return err as StorageError;
}

/** Polls `check` until it holds (true) or `timeoutMs` passes. */
export async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}
