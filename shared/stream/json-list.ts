/**
 * Compact JSON of a list body whose items get their type stamped first
 * (`{"apiVersion":…,"kind":…,…item}`), produced in large pieces: item texts are
 * joined into one string of about `batchChars` before it is handed on, so a list of
 * many small items costs one UTF-8 encoding per batch instead of one per item and
 * separator, and no item is copied to put apiVersion and kind in front of it.
 *
 * Contract: the bytes equal `JSON.stringify({...envelope, [arrayKey]: items.map((o) =>
 * ({...typeMeta, ...o}))})` (with `text` as the stringifier); the array is the last key.
 * Items already encoded alone (`cached`, the whole typed item's JSON bytes) are copied
 * into byte pieces of about `batchChars` bytes, in place; one larger than that is
 * passed through as it is. Pieces are never written to after they are handed on.
 */
import { withOwn } from "../schema/values.ts";

export interface JsonListParts {
  /** The body without its array. */
  envelope: Record<string, unknown>;
  arrayKey: string;
  /** Stamped first on every item, in this order. */
  typeMeta: { apiVersion: string; kind: string };
  count: number;
  item(i: number): Readonly<Record<string, unknown>>;
  /** The i-th typed item's compact JSON bytes, when known. */
  cached?(i: number): Uint8Array | undefined;
  /** Compact JSON text of a value (JSON.stringify, or a stand-in that also handles BigInt). */
  text(value: unknown): string;
}

/** Characters gathered before a batch is handed on. */
export const DEFAULT_BATCH_CHARS = 64 * 1024;

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

/**
 * JSON text of one typed item without copying it: the item's own text with the type
 * in front. An item that carries apiVersion or kind itself, or whose first key is an
 * array index (such keys come before apiVersion in a copy), is copied as the spread
 * would make it, so the text is always the spread's.
 */
export function typedItemText(typeHead: string, typeMeta: JsonListParts["typeMeta"], item: Readonly<Record<string, unknown>>, text: (value: unknown) => string): string {
  if (Object.hasOwn(item, "apiVersion") || Object.hasOwn(item, "kind") || startsWithIndexKey(item)) {
    // An item whose keys start with apiVersion and kind (a stored object) is its own spread.
    // Otherwise a copy, made with withOwn: a spread copy would get a hidden class of its own.
    return text(startsWithTypeMeta(item) ? item : withOwn(typeMeta, item));
  }
  const own = text(item);
  return own === "{}" ? `${typeHead}}` : `${typeHead},${own.slice(1)}`;
}

function startsWithIndexKey(item: Readonly<Record<string, unknown>>): boolean {
  for (const key in item) return ARRAY_INDEX.test(key);
  return false;
}

/** Whether the first two keys are apiVersion and kind, in that order. */
function startsWithTypeMeta(item: Readonly<Record<string, unknown>>): boolean {
  let first = true;
  for (const key in item) {
    if (!first) return key === "kind";
    if (key !== "apiVersion") return false;
    first = false;
  }
  return false;
}

const COMMA = Uint8Array.of(0x2c);

/** Cached item bytes gathered into one piece of about `size` bytes (a fresh buffer after each `take`). */
class ByteBatch {
  private buf: Uint8Array;
  pos = 0;

  constructor(private readonly size: number) {
    this.buf = new Uint8Array(size);
  }

  fits(n: number): boolean {
    return this.pos + n <= this.buf.length;
  }

  add(bytes: Uint8Array): void {
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  take(): Uint8Array {
    const out = this.buf.subarray(0, this.pos);
    this.buf = new Uint8Array(this.size);
    this.pos = 0;
    return out;
  }
}

export function* jsonListPieces(parts: JsonListParts, batchChars = DEFAULT_BATCH_CHARS): Generator<string | Uint8Array> {
  const head = parts.text(parts.envelope);
  const key = JSON.stringify(parts.arrayKey);
  const typeHead = parts.text(parts.typeMeta).slice(0, -1);
  let batch = head === "{}" ? `{${key}:[` : `${head.slice(0, -1)},${key}:[`;
  let bytesBatch: ByteBatch | undefined;
  for (let i = 0; i < parts.count; i++) {
    const bytes = parts.cached?.(i);
    if (bytes) {
      // Runs of cached items are copied into byte pieces of about the batch size (not two pieces per item).
      if (batch) {
        yield batch;
        batch = "";
      }
      const b = (bytesBatch ??= new ByteBatch(batchChars));
      const n = bytes.length + (i > 0 ? 1 : 0);
      if (!b.fits(n) && b.pos > 0) yield b.take();
      if (b.fits(n)) {
        if (i > 0) b.add(COMMA);
        b.add(bytes);
      } else {
        if (i > 0) yield COMMA;
        yield bytes; // larger than a batch: passed through as it is
      }
      continue;
    }
    if (bytesBatch && bytesBatch.pos > 0) yield bytesBatch.take();
    if (i > 0) batch += ",";
    batch += typedItemText(typeHead, parts.typeMeta, parts.item(i), parts.text);
    if (batch.length >= batchChars) {
      yield batch;
      batch = "";
    }
  }
  if (bytesBatch && bytesBatch.pos > 0) yield bytesBatch.take();
  yield `${batch}]}`;
}
