/**
 * Streaming encoders of collection bodies (a list's `items`, a Table's `rows`): the
 * envelope first, then the elements one at a time, computed on demand and dropped
 * once written. The bytes equal those of encoding the whole body at once with the
 * same encoder (JSON compact and pretty, YAML, CBOR); see protobuf/list-stream.ts
 * for protobuf.
 *
 * Contract: the array is the last key of the whole body, `envelope` holds the
 * other keys in their order and not the array's key.
 */
import { stringify as yamlStringify } from "yaml";
import { CBOR_SELF_DESCRIBED, encodeCbor } from "./cbor.ts";
import type { Piece } from "./chunked-stream.ts";

export interface CollectionParts {
  /** The body without its array. */
  envelope: Record<string, unknown>;
  /** Key of the array (`items`, `rows`). */
  arrayKey: string;
  count: number;
  /** The i-th element, computed when it is written. */
  element(i: number): unknown;
  /** The i-th element already encoded alone in the stream's encoding (JSON text bytes, or CBOR with its self-described tag), when known. */
  cached?(i: number): Uint8Array | undefined;
}

/** JSON of the body, compact or as `JSON.stringify(body, null, 2) + "\n"`; `text` is the whole-body stringifier (compact, or pretty with the trailing newline). */
export function* jsonCollection(parts: CollectionParts, text: (value: unknown, pretty: boolean) => string, pretty: boolean): Generator<Piece> {
  const head = text(parts.envelope, pretty);
  const key = JSON.stringify(parts.arrayKey);
  if (!pretty) {
    // `{…}` without its closing brace; an envelope with no keys takes no comma.
    yield head === "{}" ? `{${key}:[` : `${head.slice(0, -1)},${key}:[`;
    for (let i = 0; i < parts.count; i++) {
      if (i > 0) yield ",";
      yield parts.cached?.(i) ?? text(parts.element(i), false);
    }
    yield "]}";
    return;
  }
  // Pretty: "{\n  …\n}\n"; elements sit two levels deep (4 spaces).
  const open = head === "{}\n" ? `{\n  ${key}: ` : `${head.slice(0, -3)},\n  ${key}: `;
  if (parts.count === 0) {
    yield `${open}[]\n}\n`;
    return;
  }
  yield `${open}[\n    `;
  for (let i = 0; i < parts.count; i++) {
    if (i > 0) yield ",\n    ";
    yield text(parts.element(i), true).slice(0, -1).replace(/\n/g, "\n    ");
  }
  yield "\n  ]\n}\n";
}

const yamlOptions = { aliasDuplicateObjects: false } as const;

/** YAML of the body as the `yaml` package writes it whole: each element is written as the only element of the array, in place. */
export function* yamlCollection(parts: CollectionParts): Generator<Piece> {
  const head = Object.keys(parts.envelope).length === 0 ? "" : yamlStringify(parts.envelope, yamlOptions);
  if (parts.count === 0) {
    yield `${head}${yamlStringify({ [parts.arrayKey]: [] }, yamlOptions)}`;
    return;
  }
  const open = yamlStringify({ [parts.arrayKey]: [null] }, yamlOptions);
  const prefix = open.slice(0, open.indexOf("\n") + 1);
  yield head + prefix;
  for (let i = 0; i < parts.count; i++) yield yamlStringify({ [parts.arrayKey]: [parts.element(i)] }, yamlOptions).slice(prefix.length);
}

/** CBOR of the body as `encodeCbor` writes it whole: the envelope's map header counts the array's key too. */
export function* cborCollection(parts: CollectionParts): Generator<Piece> {
  const head = encodeCbor(parts.envelope);
  const tag = CBOR_SELF_DESCRIBED.length;
  const pairs = head[tag] - 0xa0; // a small map's header is one byte: 0xa0 + pairs
  if (pairs < 0 || pairs >= 23) throw new Error("cbor collection: the envelope must be a map of fewer than 23 keys");
  const out = new Uint8Array(head.length);
  out.set(head);
  out[tag] = 0xa0 + pairs + 1;
  yield out;
  yield encodeCbor(parts.arrayKey).subarray(tag);
  yield cborArrayHeader(parts.count);
  for (let i = 0; i < parts.count; i++) yield (parts.cached?.(i) ?? encodeCbor(parts.element(i))).subarray(tag);
}

function cborArrayHeader(n: number): Uint8Array {
  if (n < 24) return Uint8Array.of(0x80 | n);
  if (n < 0x100) return Uint8Array.of(0x98, n);
  if (n < 0x10000) return Uint8Array.of(0x99, n >> 8, n & 0xff);
  return Uint8Array.of(0x9a, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}
