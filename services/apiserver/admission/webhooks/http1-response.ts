/**
 * The HTTP/1.1 response of one request, read incrementally from a connection's
 * bytes (RFC 9112): the status line, the header fields, then a body framed by
 * Transfer-Encoding chunked, by Content-Length, or by the connection's end.
 * Interim 1xx responses are skipped; 204 and 304 have no body. A response is
 * reusable (the connection may carry the next request) when it is HTTP/1.1
 * without `Connection: close`, its body was framed by length or chunks, and no
 * byte followed it. Pure: no sockets, no timers. Malformed input, a header
 * section over MAX_HEAD_BYTES and a body over the caller's limit are
 * `Http1ParseError`s, never a partial response.
 */

/** The header section (status line and fields) is capped, as HTTP clients cap it. */
export const MAX_HEAD_BYTES = 64 * 1024;

export class Http1ParseError extends Error {}

/** The body exceeded the reader's limit. */
export class BodyTooLargeError extends Http1ParseError {}

export interface Http1Response {
  status: number;
  /** Header fields by lower-case name; repeated fields joined with ", ". */
  headers: Map<string, string>;
  body: Buffer;
  /** Whether the connection may carry another request. */
  reusable: boolean;
}

type Framing = { kind: "none" } | { kind: "length"; remaining: number } | { kind: "chunked" } | { kind: "close" };

const CRLF = Buffer.from("\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,15})[ \t]*(?:;.*)?$/;

/** A line of chunked framing (a size with extensions, a trailer field) is capped. */
const MAX_LINE_BYTES = 4096;

/**
 * Bytes received and not yet consumed. A chunk that arrives when nothing is
 * pending is used as it is; otherwise bytes are appended into a buffer of our
 * own that doubles when full, so feeding a response in many small pieces costs
 * linear time. Views handed out stay valid: bytes are only ever written past the end.
 */
class Pending {
  private buf: Buffer = Buffer.alloc(0);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  append(chunk: Buffer): void {
    if (this.start === this.end) {
      this.buf = chunk;
      this.start = 0;
      this.end = chunk.length;
      return;
    }
    if (this.end + chunk.length > this.buf.length) {
      const live = this.end - this.start;
      const next = Buffer.allocUnsafe(Math.max(live + chunk.length, live * 2, 4096));
      this.buf.copy(next, 0, this.start, this.end);
      this.buf = next;
      this.start = 0;
      this.end = live;
    }
    chunk.copy(this.buf, this.end);
    this.end += chunk.length;
  }

  /** Offset of `needle` from the first pending byte, searching from `from`; -1 when absent. */
  indexOf(needle: Buffer, from: number): number {
    const i = this.buf.subarray(0, this.end).indexOf(needle, this.start + from);
    return i < 0 ? -1 : i - this.start;
  }

  text(n: number): string {
    return this.buf.toString("latin1", this.start, this.start + n);
  }

  /** The next `n` bytes, consumed. */
  take(n: number): Buffer {
    const out = this.buf.subarray(this.start, this.start + n);
    this.start += n;
    return out;
  }
}

interface Head {
  status: number;
  minor: number;
  headers: Map<string, string>;
}

function parseHead(text: string): Head {
  const lines = text.split("\r\n");
  const m = STATUS_LINE.exec(lines[0]);
  if (!m) throw new Http1ParseError(`malformed HTTP status line ${JSON.stringify(lines[0].slice(0, 64))}`);
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) throw new Http1ParseError(`malformed HTTP header line ${JSON.stringify(line.slice(0, 64))}`);
    const value = line.slice(colon + 1).trim();
    const key = name.toLowerCase();
    const had = headers.get(key);
    headers.set(key, had === undefined ? value : `${had}, ${value}`);
  }
  return { status: Number(m[2]), minor: Number(m[1]), headers };
}

function tokens(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(",").map((t) => t.trim().toLowerCase()).filter((t) => t !== "");
}

/** How the body of `head` ends (RFC 9112 §6.3). */
function framing(head: Head): Framing {
  if (head.status === 204 || head.status === 304) return { kind: "none" };
  const te = tokens(head.headers.get("transfer-encoding"));
  if (te.length > 0) return te[te.length - 1] === "chunked" ? { kind: "chunked" } : { kind: "close" };
  const cl = head.headers.get("content-length");
  if (cl === undefined) return { kind: "close" };
  const values = new Set(cl.split(",").map((v) => v.trim()));
  const [only] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(only)) throw new Http1ParseError(`invalid Content-Length ${JSON.stringify(cl.slice(0, 64))}`);
  return { kind: "length", remaining: Number(only) };
}

/**
 * Reads one response: `push` each chunk of the connection's bytes until it
 * returns the response; `end` when the connection ended first.
 */
export class Http1ResponseReader {
  private readonly pending = new Pending();
  /** Where the search for the end of the current line or header section resumes. */
  private scanned = 0;
  private head: Head | undefined;
  private frame: Framing = { kind: "none" };
  private readonly body: Buffer[] = [];
  private bodyBytes = 0;
  /** Chunked framing: bytes of the current chunk still to read, 0 before its CRLF, -1 before a size line, -2 in the trailers. */
  private chunkLeft = -1;
  private trailerBytes = 0;

  constructor(private readonly maxBodyBytes: number) {}

  push(chunk: Buffer): Http1Response | undefined {
    this.pending.append(chunk);
    for (;;) {
      if (!this.head) {
        const end = this.pending.indexOf(HEAD_END, this.scanned);
        if (end < 0) {
          if (this.pending.length > MAX_HEAD_BYTES) throw new Http1ParseError(`HTTP header section larger than ${MAX_HEAD_BYTES} bytes`);
          this.scanned = Math.max(0, this.pending.length - (HEAD_END.length - 1));
          return undefined;
        }
        if (end > MAX_HEAD_BYTES) throw new Http1ParseError(`HTTP header section larger than ${MAX_HEAD_BYTES} bytes`);
        const head = parseHead(this.pending.text(end));
        this.pending.take(end + HEAD_END.length);
        this.scanned = 0;
        if (head.status === 101) throw new Http1ParseError("unexpected 101 Switching Protocols");
        if (head.status < 200) continue; // an interim response: the real one follows
        this.head = head;
        this.frame = framing(head);
      }
      return this.readBody();
    }
  }

  /** The connection ended: the response when its body runs to the end, else an error. */
  end(): Http1Response {
    if (this.head && this.frame.kind === "close") return this.done(false);
    throw new Http1ParseError(this.head ? "unexpected EOF" : "socket hang up");
  }

  private take(n: number): void {
    if (n === 0) return;
    this.bodyBytes += n;
    if (this.bodyBytes > this.maxBodyBytes) throw new BodyTooLargeError(`response body larger than ${this.maxBodyBytes} bytes`);
    this.body.push(this.pending.take(n));
  }

  private readBody(): Http1Response | undefined {
    const f = this.frame;
    if (f.kind === "none") return this.done(true);
    if (f.kind === "close") {
      this.take(this.pending.length);
      return undefined;
    }
    if (f.kind === "length") {
      const n = Math.min(f.remaining, this.pending.length);
      this.take(n);
      f.remaining -= n;
      return f.remaining === 0 ? this.done(true) : undefined;
    }
    return this.readChunks();
  }

  /** The next line of chunked framing (consumed), or undefined until it is complete. */
  private line(): string | undefined {
    const eol = this.pending.indexOf(CRLF, this.scanned);
    if (eol < 0) {
      if (this.pending.length > MAX_LINE_BYTES) throw new Http1ParseError("malformed chunked encoding: line too long");
      this.scanned = Math.max(0, this.pending.length - (CRLF.length - 1));
      return undefined;
    }
    if (eol > MAX_LINE_BYTES) throw new Http1ParseError("malformed chunked encoding: line too long");
    this.scanned = 0;
    const text = this.pending.text(eol);
    this.pending.take(eol + CRLF.length);
    return text;
  }

  private readChunks(): Http1Response | undefined {
    for (;;) {
      if (this.chunkLeft > 0) {
        const n = Math.min(this.chunkLeft, this.pending.length);
        this.take(n);
        this.chunkLeft -= n;
        if (this.chunkLeft > 0) return undefined;
      }
      const line = this.line();
      if (line === undefined) return undefined;
      if (this.chunkLeft === 0) {
        // The CRLF that ends a chunk's data.
        if (line !== "") throw new Http1ParseError("malformed chunked encoding: no CRLF after chunk data");
        this.chunkLeft = -1;
        continue;
      }
      if (this.chunkLeft === -2) {
        // Trailer fields, up to an empty line.
        if (line === "") return this.done(true);
        this.trailerBytes += line.length + CRLF.length;
        if (this.trailerBytes > MAX_HEAD_BYTES) throw new Http1ParseError(`HTTP trailer section larger than ${MAX_HEAD_BYTES} bytes`);
        continue;
      }
      const m = CHUNK_SIZE.exec(line);
      if (!m) throw new Http1ParseError(`malformed chunked encoding: chunk size ${JSON.stringify(line.slice(0, 32))}`);
      const size = parseInt(m[1], 16);
      if (this.bodyBytes + size > this.maxBodyBytes) throw new BodyTooLargeError(`response body larger than ${this.maxBodyBytes} bytes`);
      this.chunkLeft = size === 0 ? -2 : size;
    }
  }

  private done(framed: boolean): Http1Response {
    const head = this.head as Head;
    const body = this.body.length === 1 ? this.body[0] : Buffer.concat(this.body);
    const close = tokens(head.headers.get("connection")).includes("close");
    return { status: head.status, headers: head.headers, body, reusable: framed && head.minor === 1 && !close && this.pending.length === 0 };
  }
}
