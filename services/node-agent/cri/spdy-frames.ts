/**
 * SPDY/3.1 framing, as far as a port-forward server needs it (pure apart from zlib):
 * a frame reader over a byte stream (control frames SYN_STREAM, SYN_REPLY, RST_STREAM,
 * SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE and data frames), frame encoders, and
 * the header blocks: name/value pairs with 32-bit lengths, compressed as one zlib
 * stream per direction primed with the protocol's dictionary.
 * - Incoming blocks are inflated as one continued stream: all blocks received so far
 *   are inflated again with a sync flush and the new output is the new block (header
 *   blocks are small and few: two per forwarded connection); the total is bounded.
 * - Outgoing blocks are zlib "stored" blocks (no compression) continuing one zlib
 *   stream, each block ended by an empty stored block like a sync flush, which every
 *   SPDY reader inflates like compressed ones.
 */
import { constants, inflateSync } from "node:zlib";

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

export const SYN_STREAM = 1;
export const SYN_REPLY = 2;
export const RST_STREAM = 3;
export const SETTINGS = 4;
export const PING = 6;
export const GOAWAY = 7;
export const HEADERS = 8;
export const WINDOW_UPDATE = 9;

/** RST_STREAM status codes used here. */
export const RST_PROTOCOL_ERROR = 1;
export const RST_INVALID_STREAM = 2;
export const RST_CANCEL = 5;

/** Larger frames end the session (a port-forward peer sends at most 32 KiB of data per frame). */
export const MAX_FRAME_LENGTH = 1 << 20;
/** Inflated header bytes of one session, at most. */
const MAX_HEADER_BYTES = 1 << 20;

export type SpdyFrame =
  | { kind: "data"; streamId: number; flags: number; data: Buffer }
  | { kind: "control"; type: number; flags: number; payload: Buffer };

/** Splits a byte stream into frames; `push` returns the frames completed by the chunk. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): SpdyFrame[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: SpdyFrame[] = [];
    while (this.pending.length >= 8) {
      const length = this.pending.readUIntBE(5, 3);
      if (length > MAX_FRAME_LENGTH) throw new Error(`SPDY frame of ${length} bytes is too large`);
      if (this.pending.length < 8 + length) break;
      const flags = this.pending[4];
      const body = this.pending.subarray(8, 8 + length);
      if (this.pending[0] & 0x80) {
        const version = this.pending.readUInt16BE(0) & 0x7fff;
        if (version !== SPDY_VERSION) throw new Error(`unsupported SPDY version ${version}`);
        frames.push({ kind: "control", type: this.pending.readUInt16BE(2), flags, payload: Buffer.from(body) });
      } else {
        frames.push({ kind: "data", streamId: this.pending.readUInt32BE(0) & 0x7fffffff, flags, data: Buffer.from(body) });
      }
      this.pending = this.pending.subarray(8 + length);
    }
    return frames;
  }
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(payload.length, 4);
  head[4] = flags;
  return Buffer.concat([head, payload]);
}

export function dataFrame(streamId: number, data: Buffer, fin: boolean): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(data.length, 4);
  head[4] = fin ? FLAG_FIN : 0;
  return Buffer.concat([head, data]);
}

export function synReplyFrame(streamId: number, headerBlock: Buffer, fin = false): Buffer {
  const id = Buffer.alloc(4);
  id.writeUInt32BE(streamId & 0x7fffffff, 0);
  return controlFrame(SYN_REPLY, fin ? FLAG_FIN : 0, Buffer.concat([id, headerBlock]));
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  const p = Buffer.alloc(8);
  p.writeUInt32BE(streamId & 0x7fffffff, 0);
  p.writeUInt32BE(status, 4);
  return controlFrame(RST_STREAM, 0, p);
}

export function pingFrame(id: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeUInt32BE(id >>> 0, 0);
  return controlFrame(PING, 0, p);
}

export function goAwayFrame(lastGoodStreamId: number, status = 0): Buffer {
  const p = Buffer.alloc(8);
  p.writeUInt32BE(lastGoodStreamId & 0x7fffffff, 0);
  p.writeUInt32BE(status, 4);
  return controlFrame(GOAWAY, 0, p);
}

/** The fields of a SYN_STREAM payload. */
export function parseSynStream(payload: Buffer): { streamId: number; associatedId: number; headerBlock: Buffer } {
  if (payload.length < 10) throw new Error("short SYN_STREAM frame");
  return { streamId: payload.readUInt32BE(0) & 0x7fffffff, associatedId: payload.readUInt32BE(4) & 0x7fffffff, headerBlock: payload.subarray(10) };
}

/** The stream id at the start of a RST_STREAM, SYN_REPLY, HEADERS or WINDOW_UPDATE payload. */
export function payloadStreamId(payload: Buffer): number {
  return payload.length >= 4 ? payload.readUInt32BE(0) & 0x7fffffff : 0;
}

/** The header-compression dictionary of SPDY/3: length-prefixed words, then a run of common text. */
const DICTIONARY_WORDS = [
  "options", "head", "post", "put", "delete", "trace", "accept", "accept-charset", "accept-encoding", "accept-language",
  "accept-ranges", "age", "allow", "authorization", "cache-control", "connection", "content-base", "content-encoding",
  "content-language", "content-length", "content-location", "content-md5", "content-range", "content-type", "date", "etag",
  "expect", "expires", "from", "host", "if-match", "if-modified-since", "if-none-match", "if-range", "if-unmodified-since",
  "last-modified", "location", "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
  "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "vary", "via", "warning",
  "www-authenticate", "method", "get", "status", "200 OK", "version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin",
];
const DICTIONARY_TEXT =
  "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505" +
  "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized" +
  "403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable" +
  "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT" +
  "chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript," +
  "publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

export const HEADER_DICTIONARY: Buffer = Buffer.concat([
  ...DICTIONARY_WORDS.map((w) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length, 0);
    return Buffer.concat([len, Buffer.from(w, "latin1")]);
  }),
  Buffer.from(DICTIONARY_TEXT, "latin1"),
]);

export type HeaderBlock = Map<string, string[]>;

/** The uncompressed form of a header block: a pair count, then each name and value (values joined by NUL). */
export function encodeHeaderPairs(headers: HeaderBlock): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n, 0);
    return b;
  };
  parts.push(u32(headers.size));
  for (const [name, values] of headers) {
    const n = Buffer.from(name.toLowerCase(), "utf8");
    const v = Buffer.from(values.join("\0"), "utf8");
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

/** Reads the pairs of an uncompressed block; throws on a truncated one. */
export function decodeHeaderPairs(raw: Buffer): HeaderBlock {
  const out: HeaderBlock = new Map();
  let at = 0;
  const u32 = () => {
    if (at + 4 > raw.length) throw new Error("truncated SPDY header block");
    const n = raw.readUInt32BE(at);
    at += 4;
    return n;
  };
  const bytes = (n: number) => {
    if (at + n > raw.length) throw new Error("truncated SPDY header block");
    const s = raw.subarray(at, at + n).toString("utf8");
    at += n;
    return s;
  };
  const count = u32();
  for (let i = 0; i < count; i++) {
    const name = bytes(u32()).toLowerCase();
    const values = bytes(u32()).split("\0");
    out.set(name, [...(out.get(name) ?? []), ...values]);
  }
  return out;
}

/** Inflates the peer's header blocks (one zlib stream across the session). */
export class HeaderInflater {
  private compressed: Buffer = Buffer.alloc(0);
  private produced = 0;

  decode(block: Buffer): HeaderBlock {
    this.compressed = Buffer.concat([this.compressed, block]);
    const all = inflateSync(this.compressed, { dictionary: HEADER_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    if (all.length > MAX_HEADER_BYTES) throw new Error("SPDY header blocks exceed the session's limit");
    const fresh = all.subarray(this.produced);
    this.produced = all.length;
    return decodeHeaderPairs(fresh);
  }
}

/** Writes this side's header blocks as stored (uncompressed) blocks of one zlib stream. */
export class HeaderDeflater {
  private started = false;

  encode(headers: HeaderBlock): Buffer {
    const raw = encodeHeaderPairs(headers);
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      parts.push(Buffer.from([0x78, 0x01]));
    }
    for (let at = 0; at < raw.length; at += 0xffff) {
      const chunk = raw.subarray(at, at + 0xffff);
      const head = Buffer.alloc(5);
      head[0] = 0x00; // BFINAL 0, BTYPE 00 (stored)
      head.writeUInt16LE(chunk.length, 1);
      head.writeUInt16LE(~chunk.length & 0xffff, 3);
      parts.push(head, chunk);
    }
    // An empty stored block, as a sync flush ends with: inflaters hand out what they
    // hold when they reach it, without reading past the header block.
    parts.push(Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]));
    return Buffer.concat(parts);
  }
}
