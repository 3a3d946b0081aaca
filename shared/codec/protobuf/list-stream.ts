/**
 * A `<Kind>List` protobuf body written item by item, byte for byte what `encodeList`
 * writes for the whole list. The envelope's `raw` field is length-prefixed, so a
 * first pass encodes every item to learn its size, keeping the encoded items (with
 * their field prefix, in one buffer) while they total at most `retainBytes`; a
 * second pass writes the items not kept, encoding them again, in chunks of about
 * 64 KiB. Memory stays bounded by `retainBytes` plus one chunk, whatever the list's
 * size; a list within `retainBytes` is encoded once. The buffer of kept items is
 * reused by the next list (compiled.ts `takeWriter`).
 */
import type { PlatformProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { PAUSE, type Piece } from "../chunked-stream.ts";
import { GrowingWriter, encodeMessage, releaseWriter, takeWriter, writeMessageInto } from "./compiled.ts";
import { PROTOBUF_MAGIC, envelopeRaw } from "./envelope.ts";
import { kindLayout, listLayout } from "./layout.ts";
import { typeMetaOnWire } from "./object.ts";
import { WIRE_LEN, Writer } from "./wire.ts";

type Obj = Record<string, unknown>;

export interface ProtobufListParts {
  metadata: Obj;
  count: number;
  /** The i-th item (apiVersion and kind, if present, are not encoded). */
  item(i: number): Obj;
  /** The i-th item's whole protobuf object body (`encodeObject`), when already known: its `raw` is reused. */
  cached?(i: number): Uint8Array | undefined;
}

/** Items encoded and kept for the second pass, at most (4 MiB: 10,000 small objects). */
export const DEFAULT_RETAIN_BYTES = 1 << 22;
const CHUNK_BYTES = 1 << 16;
/** Items between two PAUSE pieces of the sizing pass. */
const ITEMS_PER_PAUSE = 32;
const ITEMS_TAG = 2 * 8 + WIRE_LEN;

export function* protobufListBody(def: KindDefinition, profile: PlatformProfile, parts: ProtobufListParts, retainBytes = DEFAULT_RETAIN_BYTES): Generator<Piece> {
  const layout = kindLayout(def);
  const strip = typeMetaOnWire(layout);
  /** Appends item i with its field prefix (tag 2, length) to w; returns the bytes written. */
  const writeItem = (w: GrowingWriter, i: number): number => {
    const start = w.pos;
    w.byte(ITEMS_TAG);
    const s = w.begin();
    const whole = parts.cached?.(i);
    if (whole) {
      const raw = envelopeRaw(whole);
      w.ensure(raw.length);
      w.buf.set(raw, w.pos);
      w.pos += raw.length;
    } else {
      const item = parts.item(i);
      if (strip) {
        const { apiVersion: _a, kind: _k, ...rest } = item;
        writeMessageInto(w, layout, rest);
      } else writeMessageInto(w, layout, item);
    }
    w.end(s);
    return w.pos - start;
  };

  const head = encodeMessage(listLayout(def), { metadata: parts.metadata });
  const sizes = new Array<number>(parts.count);
  const kept = takeWriter();
  try {
    const scratch = new GrowingWriter(1024);
    let keptCount = 0;
    let rawLength = head.length;
    for (let i = 0; i < parts.count; i++) {
      if (keptCount === i && kept.pos < retainBytes) {
        const before = kept.pos;
        sizes[i] = writeItem(kept, i);
        if (kept.pos <= retainBytes) keptCount = i + 1;
        else kept.pos = before;
      }
      if (keptCount <= i) {
        scratch.pos = 0;
        sizes[i] = writeItem(scratch, i);
      }
      rawLength += sizes[i];
      if (i % ITEMS_PER_PAUSE === ITEMS_PER_PAUSE - 1) yield PAUSE;
    }
    const typeMeta = new Writer(64).tag(1, WIRE_LEN).string(profile.apiVersion(def.group, def.version)).tag(2, WIRE_LEN).string(`${def.kind}List`).finish();
    yield new Writer(typeMeta.length + 32).raw(PROTOBUF_MAGIC).tag(1, WIRE_LEN).bytes(typeMeta).tag(2, WIRE_LEN).uvarint(rawLength).raw(head).finish();
    for (let at = 0; at < kept.pos; at += CHUNK_BYTES) yield new Uint8Array(kept.buf.subarray(at, Math.min(kept.pos, at + CHUNK_BYTES)));
    const chunk = new GrowingWriter(CHUNK_BYTES + 1024);
    for (let i = keptCount; i < parts.count; i++) {
      const size = writeItem(chunk, i);
      if (size !== sizes[i]) throw new Error(`protobuf list: item ${i} changed size while streaming`);
      if (chunk.pos >= CHUNK_BYTES) {
        yield chunk.finish();
        chunk.pos = 0;
      }
    }
    if (chunk.pos > 0) yield chunk.finish();
    yield new Writer(4).tag(3, WIRE_LEN).string("").tag(4, WIRE_LEN).string("").finish();
  } finally {
    releaseWriter(kept);
  }
}
