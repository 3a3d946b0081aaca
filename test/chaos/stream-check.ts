/**
 * Checks of the revision stream and the store's MVCC history after a chaos run:
 * - the store's history is contiguous (one entry per revision) up to its revision;
 * - the stream holds each revision at most once, in order, without a gap from its
 *   first id to its last, and each entry equals the history's changes of that
 *   revision (every revision before the first id is in the store's history, from
 *   which a reader fills what the stream lost);
 * - every acknowledged write is in the history at the revision it was acknowledged
 *   with, as a put of its key and value (in their stored form: StoredForm).
 * Each function returns the problems found (empty: fine).
 */
import { Redis } from "ioredis";
import type { RevisionChange } from "../../services/apiserver/storage/kv.ts";
import { decodeEntry, ENTRY_FIELD, revisionOfId, type StreamEntry } from "../../shared/stream/revision-entry.ts";
import type { KvOp } from "./recorder.ts";

export interface StreamRecord {
  id: string;
  entry: StreamEntry;
}

export async function readStream(url: string, stream: string): Promise<StreamRecord[]> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  redis.on("error", () => {});
  try {
    await redis.connect();
    const rows = (await redis.xrangeBuffer(stream, "-", "+")) as Array<[Buffer, Buffer[]]>;
    return rows.map(([id, fields]) => {
      const i = fields.findIndex((f) => f.toString() === ENTRY_FIELD);
      return { id: id.toString(), entry: decodeEntry(fields[i + 1]) };
    });
  } finally {
    redis.disconnect();
  }
}

export function checkHistory(history: RevisionChange[], finalRevision: number): string[] {
  const problems: string[] = [];
  for (let i = 1; i < history.length; i++) {
    if (history[i].revision !== history[i - 1].revision + 1) problems.push(`store history: revision ${history[i - 1].revision} followed by ${history[i].revision}`);
  }
  const last = history[history.length - 1]?.revision ?? 0;
  if (last !== finalRevision) problems.push(`store history ends at ${last}, store revision is ${finalRevision}`);
  return problems.slice(0, 20);
}

const same = (a: Uint8Array | undefined, b: Uint8Array | undefined) => (a === undefined || b === undefined ? a === b : Buffer.from(a).equals(Buffer.from(b)));

export function checkStream(label: string, records: StreamRecord[], history: RevisionChange[], lastRevision: number | undefined): string[] {
  const problems: string[] = [];
  const byRevision = new Map(history.map((h) => [h.revision, h]));
  const first = records.length > 0 ? revisionOfId(records[0].id) : undefined;
  if (first !== undefined && history.length > 0 && history[0].revision > first) problems.push(`${label}: stream starts at ${first}, before the store's history (${history[0].revision})`);
  for (let i = 0; i < records.length; i++) {
    const { id, entry } = records[i];
    const rev = revisionOfId(id);
    if (id !== `${rev}-0` || entry.revision !== rev) problems.push(`${label}: entry ${id} holds revision ${entry.revision}`);
    if (i > 0 && rev !== revisionOfId(records[i - 1].id) + 1) problems.push(`${label}: gap or disorder: ${records[i - 1].id} then ${id}`);
    const h = byRevision.get(rev);
    if (h === undefined) {
      problems.push(`${label}: revision ${rev} is in the stream but not in the store's history`);
      continue;
    }
    const mismatch =
      h.changes.length !== entry.changes.length ||
      h.changes.some((c, j) => {
        const s = entry.changes[j];
        return c.type !== s.type || c.key !== s.key || c.modRevision !== s.modRevision || !same(c.type === "PUT" ? c.value : undefined, s.type === "PUT" ? s.value : undefined);
      });
    if (mismatch) problems.push(`${label}: revision ${rev} differs from the store's history`);
  }
  if (lastRevision !== undefined) {
    const last = records.length > 0 ? revisionOfId(records[records.length - 1].id) : undefined;
    if (last !== lastRevision) problems.push(`${label}: stream ends at ${last ?? "nothing"}, store revision is ${lastRevision}`);
  }
  return problems.slice(0, 20);
}

/** How an operation's key and value appear in the store (default: as they are). */
export interface StoredForm {
  /** Whether the store key `storeKey` is the operation's key `key`. */
  isKey(storeKey: string, key: string): boolean;
  /** Whether the stored bytes hold the written value. */
  holds(stored: Uint8Array, value: string): boolean;
}

const AS_IS: StoredForm = { isKey: (s, k) => s === k, holds: (stored, value) => Buffer.from(stored).toString() === value };

export function checkAcknowledgedWrites(ops: readonly KvOp[], history: RevisionChange[], form: StoredForm = AS_IS): string[] {
  const problems: string[] = [];
  const byRevision = new Map(history.map((h) => [h.revision, h]));
  for (const op of ops) {
    const out = op.output;
    const inp = op.input;
    if (out === undefined || (inp.kind !== "put" && inp.kind !== "cas")) continue;
    const rev = out.kind === "put" ? out.revision : out.kind === "cas" && out.ok ? out.revision : undefined;
    if (rev === undefined) continue;
    const change = byRevision.get(rev)?.changes.find((c) => form.isKey(c.key, inp.key));
    if (change === undefined || change.type !== "PUT" || !form.holds(change.value ?? new Uint8Array(), inp.value)) {
      problems.push(`acknowledged write #${op.id} ${inp.kind}(${inp.key}, ${inp.value})@${rev} is not in the store's history at ${rev}`);
    }
  }
  return problems.slice(0, 20);
}
