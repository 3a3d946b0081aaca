/**
 * Key-by-key copy of a keyspace between two etcd v3 API servers (our store and a real
 * etcd, either way), for migrating a cluster's data:
 * - the source is read at one revision (the first page's header revision), in key
 *   order, a page at a time, so the copy is one consistent snapshot even while the
 *   source is written (writes after that revision are not copied);
 * - every key is written with its value unchanged, a batch of puts per Txn; the
 *   destination numbers revisions itself, so create/mod revisions and versions are
 *   renumbered (objects get new resourceVersions: clients relist);
 * - a key attached to a lease gets a lease on the destination with the source
 *   lease's remaining TTL (one destination lease per source lease); keys of an
 *   expired lease are skipped;
 * - the destination must hold no key in the range (nothing is overwritten or merged).
 * Failures are Errors naming the side and the step.
 */
import { randomBytes } from "node:crypto";
import type { EtcdApi } from "../../../shared/etcd/methods.ts";
import type { PbKeyValue, PbRequestOp } from "../../../shared/etcd/wire.ts";

export interface CopyOptions {
  /** Key prefix to copy (default: every key). */
  prefix?: string;
  /** Keys read per Range (default 1000). */
  pageSize?: number;
  /** Puts per Txn (default 100; etcd allows 128 operations per Txn by default). */
  batchSize?: number;
}

export interface CopyResult {
  keys: number;
  bytes: number;
  /** Source revision the copy was read at. */
  sourceRevision: number;
  /** Destination revision after the last write. */
  destinationRevision: number;
  leases: number;
  /** Keys skipped because their lease had expired. */
  expired: number;
}

const ALL = Buffer.from([0]);

/** Exclusive end of a byte prefix (etcd's GetPrefixRangeEnd); "\0" (to the end) when there is none. */
export function prefixRangeEnd(prefix: Uint8Array): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return ALL;
}

function range(prefix: string | undefined): { key: Buffer; range_end: Buffer } {
  if (prefix === undefined || prefix === "") return { key: ALL, range_end: ALL };
  const key = Buffer.from(prefix, "utf8");
  return { key, range_end: prefixRangeEnd(key) };
}

async function step<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export async function copyKeyspace(from: EtcdApi, to: EtcdApi, opts: CopyOptions = {}): Promise<CopyResult> {
  const { key, range_end } = range(opts.prefix);
  const pageSize = opts.pageSize ?? 1000;
  const batchSize = Math.min(opts.batchSize ?? 100, 128);
  const existing = await step("counting the destination's keys", () => to.unary("Range", { key, range_end, count_only: true }));
  if (Number(existing.count) > 0) {
    throw new Error(`the destination holds ${existing.count} key(s) in the range to copy; copy into an empty keyspace (nothing is overwritten)`);
  }
  const result: CopyResult = { keys: 0, bytes: 0, sourceRevision: 0, destinationRevision: Number(existing.header?.revision ?? 0), leases: 0, expired: 0 };
  const leases = new Map<string, number | null>(); // source lease id -> destination lease id (null: expired)

  const destinationLease = async (sourceLease: string): Promise<number | null> => {
    const known = leases.get(sourceLease);
    if (known !== undefined) return known;
    const ttl = await step(`reading lease ${sourceLease} of the source`, () => from.unary("LeaseTimeToLive", { ID: sourceLease }));
    let id: number | null = null;
    if (Number(ttl.TTL) > 0) {
      // A 48-bit id: exact as a JS number on both sides.
      id = randomBytes(6).readUIntBE(0, 6) || 1;
      const granted = id;
      await step("granting a lease on the destination", () => to.unary("LeaseGrant", { ID: granted, TTL: Number(ttl.TTL) }));
      result.leases++;
    }
    leases.set(sourceLease, id);
    return id;
  };

  const write = async (kvs: PbKeyValue[]) => {
    const ops: PbRequestOp[] = [];
    for (const kv of kvs) {
      const sourceLease = String(kv.lease ?? 0);
      const lease = sourceLease === "0" ? 0 : await destinationLease(sourceLease);
      if (lease === null) {
        result.expired++;
        continue;
      }
      ops.push({ request: "request_put", request_put: { key: kv.key, value: kv.value, lease } });
      result.keys++;
      result.bytes += kv.key.length + kv.value.length;
    }
    for (let i = 0; i < ops.length; i += batchSize) {
      const res = await step("writing to the destination", () => to.unary("Txn", { compare: [], success: ops.slice(i, i + batchSize), failure: [] }));
      result.destinationRevision = Number(res.header?.revision ?? result.destinationRevision);
    }
  };

  let cursor: Buffer = key;
  for (;;) {
    const page = await step("reading the source", () =>
      from.unary("Range", { key: cursor, range_end, limit: pageSize, revision: result.sourceRevision }),
    );
    if (result.sourceRevision === 0) result.sourceRevision = Number(page.header?.revision ?? 0);
    await write(page.kvs);
    if (!page.more || page.kvs.length === 0) break;
    cursor = Buffer.concat([Buffer.from(page.kvs[page.kvs.length - 1].key), ALL]);
  }
  return result;
}
