/**
 * The protobuf envelope (Part 1, content negotiation): the 4-byte prefix
 * 0x6b 0x38 0x73 0x00, then a message `Unknown`:
 *
 *   message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
 *   message Unknown  { optional TypeMeta typeMeta = 1; optional bytes raw = 2;
 *                      optional string contentEncoding = 3; optional string contentType = 4; }
 *
 * `raw` holds the protobuf-serialized object; an empty `contentEncoding` means
 * none and an empty `contentType` means the protobuf media type. Like the
 * platform's encoder, all four fields are always written (the two content
 * fields as empty strings), so our bytes equal the platform's for the same raw.
 */
import { ProtobufError, Reader, WIRE_LEN, Writer, decodeUtf8, readFields } from "./wire.ts";

/** The prefix of every protobuf body. */
export const PROTOBUF_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface Envelope {
  apiVersion: string;
  kind: string;
  /** The serialized object (a view into the input on decode). */
  raw: Uint8Array;
  /** "" means none. */
  contentEncoding: string;
  /** "" means the protobuf media type. */
  contentType: string;
}

export type EnvelopeInput = Pick<Envelope, "apiVersion" | "kind" | "raw"> & Partial<Pick<Envelope, "contentEncoding" | "contentType">>;

/** True when the bytes start with the protobuf prefix. */
export function hasProtobufMagic(bytes: Uint8Array): boolean {
  return bytes.length >= PROTOBUF_MAGIC.length && PROTOBUF_MAGIC.every((b, i) => bytes[i] === b);
}

export function encodeEnvelope(e: EnvelopeInput): Uint8Array {
  const typeMeta = new Writer(64).tag(1, WIRE_LEN).string(e.apiVersion).tag(2, WIRE_LEN).string(e.kind).finish();
  const w = new Writer(e.raw.length + typeMeta.length + 32);
  w.raw(PROTOBUF_MAGIC);
  w.tag(1, WIRE_LEN).bytes(typeMeta);
  w.tag(2, WIRE_LEN).bytes(e.raw);
  w.tag(3, WIRE_LEN).string(e.contentEncoding ?? "");
  w.tag(4, WIRE_LEN).string(e.contentType ?? "");
  return w.finish();
}

/**
 * The `raw` field of an envelope, a view into `bytes`, found by skipping the other fields
 * without decoding them (a list copies the raw of each item's kept GET bytes); anything
 * it does not expect (no prefix, a field not length-delimited, a cut length) is left to
 * `decodeEnvelope`, which names the error. Same result as `decodeEnvelope(bytes).raw`.
 */
export function envelopeRaw(bytes: Uint8Array): Uint8Array {
  if (bytes.length <= PROTOBUF_MAGIC.length || !hasProtobufMagic(bytes)) return decodeEnvelope(bytes).raw;
  let raw: Uint8Array | undefined;
  let at = PROTOBUF_MAGIC.length;
  while (at < bytes.length) {
    const tag = bytes[at++];
    if (tag >= 0x80 || (tag & 7) !== WIRE_LEN) return decodeEnvelope(bytes).raw;
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= bytes.length || shift > 28) return decodeEnvelope(bytes).raw;
      const b = bytes[at++];
      length += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    if (at + length > bytes.length) return decodeEnvelope(bytes).raw;
    if (tag >> 3 === 2) raw = bytes.subarray(at, at + length); // the last one wins, as in decodeEnvelope
    at += length;
  }
  return raw ?? new Uint8Array(0);
}

/**
 * Decodes an envelope. Throws `ProtobufError` with code `Truncated` (empty or
 * cut input), `BadMagic` (no prefix) or `Malformed`/`WrongWireType` (a broken
 * `Unknown` message). Unknown fields are skipped, as protobuf readers do.
 */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length === 0) throw new ProtobufError("Truncated", "empty protobuf body");
  const prefix = bytes.subarray(0, PROTOBUF_MAGIC.length);
  if (!PROTOBUF_MAGIC.subarray(0, prefix.length).every((b, i) => prefix[i] === b)) {
    throw new ProtobufError("BadMagic", `data does not appear to be a protobuf message: expected prefix 6b 38 73 00, got ${hex(prefix)}`);
  }
  if (bytes.length < PROTOBUF_MAGIC.length) throw new ProtobufError("Truncated", `protobuf body of ${bytes.length} bytes is shorter than its 4-byte prefix`);
  if (bytes.length === PROTOBUF_MAGIC.length) throw new ProtobufError("Truncated", "protobuf body has a prefix but no message");
  const out: Envelope = { apiVersion: "", kind: "", raw: new Uint8Array(0), contentEncoding: "", contentType: "" };
  const r = new Reader(bytes.subarray(PROTOBUF_MAGIC.length), "Unknown");
  while (!r.done) {
    const { field, wire } = r.field();
    if (field > 4) continue;
    if (wire.wireType !== WIRE_LEN) throw new ProtobufError("WrongWireType", `field ${field} has wire type ${wire.wireType}, expected 2`, "Unknown");
    if (field === 1) {
      for (const f of readFields(wire.value, "Unknown.typeMeta")) {
        if (f.field > 2) continue;
        if (f.wire.wireType !== WIRE_LEN) throw new ProtobufError("WrongWireType", `field ${f.field} has wire type ${f.wire.wireType}, expected 2`, "Unknown.typeMeta");
        if (f.field === 1) out.apiVersion = decodeUtf8(f.wire.value);
        else out.kind = decodeUtf8(f.wire.value);
      }
    } else if (field === 2) out.raw = wire.value;
    else if (field === 3) out.contentEncoding = decodeUtf8(wire.value);
    else out.contentType = decodeUtf8(wire.value);
  }
  return out;
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");
}
