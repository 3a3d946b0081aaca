/**
 * The wire of the store's call multiplexer: unary calls carried over one long-lived
 * gRPC bidirectional stream per HTTP/2 connection, instead of one HTTP/2 stream per call
 * (opening and closing a stream costs both ends far more than the call's own bytes).
 *
 *   service CallMux { rpc Calls(stream MuxCall) returns (stream MuxAnswer); }
 *   message MuxCall   { uint64 id = 1; string method = 2; bytes request = 3; }
 *   message MuxAnswer { uint64 id = 1; uint32 code = 2; string message = 3; bytes response = 4; }
 *
 * `method` is the unary method's gRPC path (/etcdserverpb.KV/Txn); `request` and
 * `response` are that method's messages, exactly as a unary call carries them. Each
 * call gets one answer with its id, in any order: code 0 with the response, or a gRPC
 * status code and message. Each message travels length-prefixed as gRPC frames it.
 * A server without the service answers the stream UNIMPLEMENTED before reading a call
 * (etcd does), so a client may then send the same calls as ordinary unary calls.
 */

import { varintSize } from "../codec/protobuf/wire.ts";

export const CALL_MUX_PATH = "/storemux.v1.CallMux/Calls";

const PREFIX = 5;

export interface MuxCall {
  id: number;
  method: string;
  request: Buffer;
}

export interface MuxAnswer {
  id: number;
  code: number;
  message: string;
  response: Buffer;
}

function putVarint(out: Buffer, pos: number, n: number): number {
  while (n >= 0x80) {
    out[pos++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[pos++] = n;
  return pos;
}

/** A framed message of length-delimited and varint fields, written in one buffer. */
function framed(fields: ReadonlyArray<readonly [tag: number, value: number | Uint8Array]>): Buffer {
  let size = 0;
  for (const [, v] of fields) size += 1 + (typeof v === "number" ? varintSize(v) : varintSize(v.length) + v.length);
  const out = Buffer.allocUnsafe(PREFIX + size);
  out[0] = 0;
  out.writeUInt32BE(size, 1);
  let pos = PREFIX;
  for (const [tag, v] of fields) {
    out[pos++] = tag;
    if (typeof v === "number") pos = putVarint(out, pos, v);
    else {
      pos = putVarint(out, pos, v.length);
      out.set(v, pos);
      pos += v.length;
    }
  }
  return out;
}

const TAG_VARINT_1 = (1 << 3) | 0;
const TAG_LEN_2 = (2 << 3) | 2;
const TAG_VARINT_2 = (2 << 3) | 0;
const TAG_LEN_3 = (3 << 3) | 2;
const TAG_LEN_4 = (4 << 3) | 2;

/** The bytes of each method path seen (a client calls a handful of methods). */
const methodBytes = new Map<string, Buffer>();

/** One call, framed for the stream. */
export function encodeMuxCall(id: number, method: string, request: Uint8Array): Buffer {
  let name = methodBytes.get(method);
  if (name === undefined) {
    name = Buffer.from(method, "latin1");
    if (methodBytes.size < 256) methodBytes.set(method, name);
  }
  return framed([
    [TAG_VARINT_1, id],
    [TAG_LEN_2, name],
    [TAG_LEN_3, request],
  ]);
}

/** One answer, framed for the stream (fields left at their default are not written). */
export function encodeMuxAnswer(id: number, code: number, message: string, response?: Uint8Array): Buffer {
  const fields: Array<readonly [number, number | Uint8Array]> = [[TAG_VARINT_1, id]];
  if (code !== 0) fields.push([TAG_VARINT_2, code]);
  if (message !== "") fields.push([TAG_LEN_3, Buffer.from(message, "utf8")]);
  if (response !== undefined && response.length > 0) fields.push([TAG_LEN_4, response]);
  return framed(fields);
}

/** Thrown for bytes that are not a well-formed message of this wire. */
export class MuxWireError extends Error {}

/** A varint at `pos` that fits a safe integer: its value and the position after it; undefined when truncated or too large. */
function readVarint(buf: Buffer, pos: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 8 && pos < buf.length; i++) {
    const b = buf[pos++];
    value += (b & 0x7f) * scale;
    if (b < 0x80) return Number.isSafeInteger(value) ? { value, next: pos } : undefined;
    scale *= 0x80;
  }
  return undefined;
}

/** `readVarint` that throws on a truncated or out-of-range varint. */
function requireVarint(buf: Buffer, pos: number): { value: number; next: number } {
  const v = readVarint(buf, pos);
  if (v === undefined) throw new MuxWireError("truncated or out-of-range varint");
  return v;
}

/**
 * Reads the fields of one message; numbers must be safe integers, unknown fields are skipped.
 * No closure is made per message: the services' loader names each named closure as it is
 * made, which costs a slow function object each time (see responseOf in the store's mvcc).
 */
function readFields(buf: Buffer, onVarint: (field: number, v: number) => void, onBytes: (field: number, b: Buffer) => void): void {
  let pos = 0;
  while (pos < buf.length) {
    const tag = requireVarint(buf, pos);
    pos = tag.next;
    const key = tag.value;
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw new MuxWireError("field number 0");
    if (wire === 0) {
      const v = requireVarint(buf, pos);
      pos = v.next;
      onVarint(field, v.value);
    } else if (wire === 2) {
      const lenField = requireVarint(buf, pos);
      pos = lenField.next;
      const len = lenField.value;
      if (pos + len > buf.length) throw new MuxWireError("truncated field");
      onBytes(field, buf.subarray(pos, pos + len));
      pos += len;
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      if (pos > buf.length) throw new MuxWireError("truncated field");
    } else throw new MuxWireError(`unsupported wire type ${wire}`);
  }
}

const EMPTY = Buffer.alloc(0);

export function decodeMuxCall(buf: Buffer): MuxCall {
  const call: MuxCall = { id: 0, method: "", request: EMPTY };
  readFields(
    buf,
    (f, v) => {
      if (f === 1) call.id = v;
    },
    (f, b) => {
      if (f === 2) call.method = b.toString("latin1");
      else if (f === 3) call.request = b;
    },
  );
  return call;
}

export function decodeMuxAnswer(buf: Buffer): MuxAnswer {
  const answer: MuxAnswer = { id: 0, code: 0, message: "", response: EMPTY };
  readFields(
    buf,
    (f, v) => {
      if (f === 1) answer.id = v;
      else if (f === 2) answer.code = v;
    },
    (f, b) => {
      if (f === 3) answer.message = b.toString("utf8");
      else if (f === 4) answer.response = b;
    },
  );
  return answer;
}

/** A message too long to be read: its length and its first bytes (where a MuxCall's id is). */
export interface Oversized {
  length: number;
  head: Buffer;
}

/** Bytes kept of an oversized message: a tag and the longest varint id. */
const HEAD_BYTES = 11;

/** The id of a MuxCall from the first bytes of its message, when they start with it (encodeMuxCall writes it first). */
export function leadingId(head: Buffer): number | undefined {
  if (head.length < 2 || head[0] !== TAG_VARINT_1) return undefined;
  return readVarint(head, 1)?.value;
}

/**
 * Splits a stream's DATA chunks into its length-prefixed messages. A message longer
 * than `maxBytes` is not kept: it is reported once with its first bytes (Oversized)
 * and its bytes are skipped as they arrive. A compressed message is an error
 * (MuxWireError): the stream cannot be read further.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes of an oversized message still to skip. */
  private skipping = 0;

  constructor(private readonly maxBytes: number) {}

  /** Adds a chunk; returns what it completed, in order. */
  push(chunk: Buffer): Array<Buffer | Oversized> {
    if (this.skipping > 0) {
      const n = Math.min(this.skipping, chunk.length);
      this.skipping -= n;
      chunk = chunk.subarray(n);
      if (chunk.length === 0) return [];
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    const out: Array<Buffer | Oversized> = [];
    while (this.size >= PREFIX) {
      const head = this.chunks[0].length >= PREFIX ? this.chunks[0] : this.merge();
      if (head[0] !== 0) throw new MuxWireError("compressed message without an encoding");
      const length = head.readUInt32BE(1);
      if (length > this.maxBytes) {
        // Wait for the first bytes of the message (or all of it, if shorter), then skip the rest.
        const want = Math.min(length, HEAD_BYTES);
        if (this.size < PREFIX + want) break;
        const all = this.chunks.length === 1 ? this.chunks[0] : this.merge();
        out.push({ length, head: Buffer.from(all.subarray(PREFIX, PREFIX + want)) });
        const have = Math.min(all.length - PREFIX, length);
        this.skipping = length - have;
        this.rest(all.subarray(PREFIX + have));
        continue;
      }
      if (this.size < PREFIX + length) break;
      const all = this.chunks.length === 1 ? this.chunks[0] : this.merge();
      out.push(all.subarray(PREFIX, PREFIX + length));
      this.rest(all.subarray(PREFIX + length));
    }
    return out;
  }

  private rest(rest: Buffer): void {
    this.chunks = rest.length > 0 ? [rest] : [];
    this.size = rest.length;
  }

  private merge(): Buffer {
    const all = Buffer.concat(this.chunks, this.size);
    this.chunks = [all];
    return all;
  }
}
