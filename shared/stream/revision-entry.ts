/**
 * The revision stream's entry format, shared by the store's publisher and the
 * apiserver's reader. One Redis stream entry per store revision, id `<revision>-0`,
 * with one field `d` holding CBOR of every key change of that revision.
 */
import { Decoder, Encoder } from "cbor-x";

export const ENTRY_FIELD = "d";

export interface StreamKeyChange {
  type: "PUT" | "DELETE";
  key: string;
  value?: Uint8Array;
  prevValue?: Uint8Array;
  createRevision: number;
  modRevision: number;
  version: number;
}

export interface StreamEntry {
  revision: number;
  changes: StreamKeyChange[];
}

interface WireChange {
  t: 0 | 1;
  k: string;
  v?: Uint8Array;
  p?: Uint8Array;
  c: number;
  m: number;
  n: number;
}

const encoder = new Encoder({ useRecords: false, mapsAsObjects: true });
const decoder = new Decoder({ useRecords: false, mapsAsObjects: true });

export function streamId(revision: number): string {
  return `${revision}-0`;
}

/** Revision of an entry id `<revision>-<seq>`; NaN for anything else. */
export function revisionOfId(id: string): number {
  const dash = id.indexOf("-");
  const head = dash < 0 ? id : id.slice(0, dash);
  return /^\d+$/.test(head) ? Number(head) : Number.NaN;
}

export function encodeEntry(entry: StreamEntry): Buffer {
  const wire: WireChange[] = entry.changes.map((c) => {
    const w: WireChange = { t: c.type === "PUT" ? 0 : 1, k: c.key, c: c.createRevision, m: c.modRevision, n: c.version };
    if (c.value) w.v = c.value;
    if (c.prevValue) w.p = c.prevValue;
    return w;
  });
  return encoder.encode({ r: entry.revision, c: wire });
}

export class StreamEntryError extends Error {}

function bytes(v: unknown): Uint8Array | undefined {
  if (v === undefined || v === null) return undefined;
  if (v instanceof Uint8Array) return v;
  throw new StreamEntryError("stream entry: value is not bytes");
}

export function decodeEntry(data: Uint8Array): StreamEntry {
  let raw: unknown;
  try {
    raw = decoder.decode(data);
  } catch (err) {
    throw new StreamEntryError(`stream entry: invalid CBOR: ${String(err)}`);
  }
  const obj = raw as { r?: unknown; c?: unknown };
  if (typeof obj !== "object" || obj === null || typeof obj.r !== "number" || !Array.isArray(obj.c)) throw new StreamEntryError("stream entry: bad shape");
  const changes = (obj.c as WireChange[]).map((w): StreamKeyChange => {
    if (typeof w.k !== "string" || (w.t !== 0 && w.t !== 1)) throw new StreamEntryError("stream entry: bad change");
    return { type: w.t === 0 ? "PUT" : "DELETE", key: w.k, value: bytes(w.v), prevValue: bytes(w.p), createRevision: w.c, modRevision: w.m, version: w.n };
  });
  return { revision: obj.r, changes };
}
