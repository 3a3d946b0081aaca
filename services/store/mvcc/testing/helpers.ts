import type { KeyValue, KvEvent, RevisionChange } from "../types.ts";

/** Helpers shared by this package's tests. */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function b(s: string): Uint8Array {
  return encoder.encode(s);
}

export function str(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** A readable summary of a kv: "key=value@create/mod/v<version>[/l<lease>]". */
export function kvs(list: readonly KeyValue[]): string[] {
  return list.map(
    (kv) =>
      `${str(kv.key)}=${str(kv.value)}@${kv.createRevision}/${kv.modRevision}/v${kv.version}` +
      (kv.lease !== 0n ? `/l${kv.lease}` : ""),
  );
}

export function events(list: readonly KvEvent[]): string[] {
  return list.map((e) => `${e.type} ${kvs([e.kv])[0]}${e.prevKv ? ` prev ${kvs([e.prevKv])[0]}` : ""}`);
}

export function changes(list: readonly RevisionChange[]): string[] {
  return list.flatMap((c) => events(c.events).map((e) => `${c.revision}: ${e}`));
}

/** Deterministic PRNG (mulberry32), shared with the other seeded tests. */
export { seededRng as rng } from "../../../../test/support/seeded-rng.ts";
