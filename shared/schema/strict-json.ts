/**
 * A strict JSON parser for request bodies. Unlike JSON.parse it reports
 * duplicate object keys (keeping the last, as the platform's decoder does),
 * keeps integers beyond 2^53 exact as bigints, bounds the nesting depth, and
 * fails with the position of the first syntax error.
 *
 * Contract: never recurses (depth is bounded only by `maxDepth`); keys such as
 * `__proto__` become own properties; messages follow the platform's decoder
 * (`invalid character 'x' looking for beginning of value`) without a `json:` prefix.
 */
import { childPath, indexPath } from "./path.ts";
import { setOwn } from "./values.ts";

export const DEFAULT_MAX_DEPTH = 1000;

export interface DecodeOptions {
  /** Maximum nesting of objects and arrays (default 1000). */
  maxDepth?: number;
  /** Integers beyond ±(2^53-1): `bigint` (exact, default) or `number` (rounded). */
  bigIntegers?: "bigint" | "number";
}

export interface DecodeResult {
  value: unknown;
  /** Paths of duplicate fields (`spec.replicas`, `spec.containers[0].name`), in document order. */
  duplicates: string[];
  /** The platform's wording for each duplicate (`duplicate field "spec.replicas"` for JSON). */
  messages: string[];
}

/** A body that cannot be decoded; `offset` is 0-based, `line` and `column` 1-based. */
export class DecodeError extends Error {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  constructor(message: string, text: string, offset: number) {
    super(message);
    this.name = "DecodeError";
    this.offset = offset;
    const before = text.slice(0, offset);
    this.line = before.split("\n").length;
    this.column = offset - before.lastIndexOf("\n");
  }
}

/** The platform's wording for a duplicate field. */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field "${path}"`;
}

/**
 * An open container. Paths are not built while parsing: a frame knows its parent and
 * its place there (`slot`: the key in an object, the index in an array), and the path
 * is computed only when a duplicate is reported.
 */
interface ObjectFrame {
  kind: "object";
  value: Record<string, unknown>;
  parent: Frame | undefined;
  slot: string | number;
  key: string;
}
interface ArrayFrame {
  kind: "array";
  value: unknown[];
  parent: Frame | undefined;
  slot: string | number;
}
type Frame = ObjectFrame | ArrayFrame;

function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  return `'${JSON.stringify(c).slice(1, -1)}'`;
}

const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
/** The characters that end a run of plain string content: the closing quote, an escape, a control character. */
// eslint-disable-next-line no-control-regex -- control characters are what a JSON string may not hold
const STRING_SPECIAL = /["\\\x00-\x1f]/g;

/** The index of the first quote, backslash or control character at or after `from`; -1 when none (`test` builds no match object). */
function specialAt(s: string, from: number): number {
  STRING_SPECIAL.lastIndex = from;
  return STRING_SPECIAL.test(s) ? STRING_SPECIAL.lastIndex - 1 : -1;
}
const HEX4 = /^[0-9a-fA-F]{4}$/;

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Sets a member; `__proto__` becomes an own data property instead of changing the prototype. */
function setMember(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") setOwn(o, key, value);
  else o[key] = value;
}

/** The index of the quote that closes a string literal, searching from `from`; -1 when there is none. */
function closingQuote(s: string, from: number): number {
  let q = s.indexOf('"', from);
  while (q >= 0) {
    let backslashes = 0;
    while (s.charCodeAt(q - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return q;
    q = s.indexOf('"', q + 1);
  }
  return -1;
}

/** The path of an open container. */
function pathOf(frame: Frame | undefined): string {
  if (!frame?.parent) return "";
  const parentPath = pathOf(frame.parent);
  return frame.parent.kind === "object" ? childPath(parentPath, frame.slot as string) : indexPath(parentPath, frame.slot as number);
}

/** Parses JSON text strictly; throws DecodeError. */
export function decodeJsonStrict(text: string, opts: DecodeOptions = {}): DecodeResult {
  return new Parser(text, opts).parse();
}

class Parser {
  private i = 0;
  private readonly n: number;
  private readonly maxDepth: number;
  private readonly big: boolean;
  private readonly duplicates: string[] = [];

  constructor(
    private readonly s: string,
    opts: DecodeOptions,
  ) {
    this.n = s.length;
    this.maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.big = (opts.bigIntegers ?? "bigint") === "bigint";
  }

  private fail(message: string, at = this.i): never {
    throw new DecodeError(message, this.s, at);
  }

  private eofOr(message: (c: string) => string): never {
    if (this.i >= this.n) this.fail("unexpected end of JSON input");
    this.fail(message(quoteChar(this.s[this.i])));
  }

  private skipWs(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c !== SPACE && c !== LF && c !== CR && c !== TAB) break;
      i++;
    }
    this.i = i;
  }

  parse(): DecodeResult {
    const stack: Frame[] = [];
    const s = this.s;
    for (;;) {
      this.skipWs();
      let value: unknown;
      const c = s.charCodeAt(this.i);
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (stack.length >= this.maxDepth) this.fail(`exceeded max depth of ${this.maxDepth} nesting levels`);
        this.i++;
        const parent = stack[stack.length - 1];
        const slot = parent === undefined ? "" : parent.kind === "object" ? parent.key : parent.value.length;
        this.skipWs();
        if (c === OPEN_OBJECT) {
          const frame: ObjectFrame = { kind: "object", value: {}, parent, slot, key: "" };
          if (s.charCodeAt(this.i) === CLOSE_OBJECT) {
            this.i++;
            value = frame.value;
          } else {
            stack.push(frame);
            this.readKey(frame);
            continue;
          }
        } else if (s.charCodeAt(this.i) === CLOSE_ARRAY) {
          this.i++;
          value = [];
        } else {
          stack.push({ kind: "array", value: [], parent, slot });
          continue;
        }
      } else {
        value = this.scalar(c);
      }
      // Attach the finished value to its parents, closing containers as they end.
      for (;;) {
        const top = stack[stack.length - 1];
        if (!top) {
          this.skipWs();
          if (this.i < this.n) this.fail(`invalid character ${quoteChar(s[this.i])} after top-level value`);
          return { value, duplicates: this.duplicates, messages: this.duplicates.map(duplicateFieldMessage) };
        }
        this.skipWs();
        const next = s.charCodeAt(this.i);
        if (top.kind === "object") {
          if (Object.hasOwn(top.value, top.key)) this.duplicates.push(childPath(pathOf(top), top.key));
          setMember(top.value, top.key, value);
          if (next === COMMA) {
            this.i++;
            this.skipWs();
            this.readKey(top);
            break;
          }
          if (next !== CLOSE_OBJECT) this.eofOr((q) => `invalid character ${q} after object key:value pair`);
        } else {
          top.value.push(value);
          if (next === COMMA) {
            this.i++;
            break;
          }
          if (next !== CLOSE_ARRAY) this.eofOr((q) => `invalid character ${q} after array element`);
        }
        this.i++;
        stack.pop();
        value = top.value;
      }
    }
  }

  /** Reads `"key" :` into the frame. */
  private readKey(frame: ObjectFrame): void {
    if (this.s.charCodeAt(this.i) !== QUOTE) this.eofOr((q) => `invalid character ${q} looking for beginning of object key string`);
    frame.key = this.string();
    this.skipWs();
    if (this.s.charCodeAt(this.i) !== COLON) this.eofOr((q) => `invalid character ${q} after object key`);
    this.i++;
  }

  private scalar(c: number): unknown {
    if (c === QUOTE) return this.string();
    if (c === MINUS || (c >= ZERO && c <= NINE)) return this.number();
    if (c === 0x74) return this.literal("true", true);
    if (c === 0x66) return this.literal("false", false);
    if (c === 0x6e) return this.literal("null", null);
    return this.eofOr((q) => `invalid character ${q} looking for beginning of value`);
  }

  private literal<T>(word: string, value: T): T {
    for (let k = 0; k < word.length; k++, this.i++) {
      if (this.s[this.i] !== word[k]) this.eofOr((q) => `invalid character ${q} in literal ${word} (expecting '${word[k]}')`);
    }
    return value;
  }

  private digits(): number {
    const s = this.s;
    const start = this.i;
    let i = start;
    for (;;) {
      const c = s.charCodeAt(i);
      if (!(c >= ZERO && c <= NINE)) break;
      i++;
    }
    this.i = i;
    return i - start;
  }

  private number(): number | bigint {
    const s = this.s;
    const start = this.i;
    if (s.charCodeAt(this.i) === MINUS) this.i++;
    if (s.charCodeAt(this.i) === ZERO) this.i++;
    else if (this.digits() === 0) this.eofOr((q) => `invalid character ${q} in numeric literal`);
    let integral = true;
    if (s.charCodeAt(this.i) === DOT) {
      integral = false;
      this.i++;
      if (this.digits() === 0) this.eofOr((q) => `invalid character ${q} after decimal point in numeric literal`);
    }
    const e = s.charCodeAt(this.i);
    if (e === 0x65 || e === 0x45) {
      integral = false;
      this.i++;
      const sign = s.charCodeAt(this.i);
      if (sign === 0x2b || sign === MINUS) this.i++;
      if (this.digits() === 0) this.eofOr((q) => `invalid character ${q} in exponent of numeric literal`);
    }
    const text = s.slice(start, this.i);
    const n = Number(text);
    if (integral && !Number.isSafeInteger(n) && this.big) return BigInt(text);
    if (!Number.isFinite(n)) this.fail(`cannot unmarshal number ${text} into a float64 value`, start);
    return n === 0 ? 0 : n;
  }

  /**
   * A string literal. Without escapes, its content is found with one native search;
   * with escapes, the literal up to its closing quote is decoded by JSON.parse, and
   * only a literal JSON.parse refuses is walked step by step for the exact error.
   */
  private string(): string {
    const s = this.s;
    const start = this.i + 1; // after the opening quote
    const at = specialAt(s, start);
    if (at >= 0 && s.charCodeAt(at) === QUOTE) {
      this.i = at + 1;
      return s.slice(start, at);
    }
    if (at >= 0 && s.charCodeAt(at) === BACKSLASH) {
      const end = closingQuote(s, at);
      if (end >= 0) {
        try {
          const value = JSON.parse(s.slice(start - 1, end + 1)) as string;
          this.i = end + 1;
          return value;
        } catch {
          // walked below for the exact error
        }
      }
    }
    this.i = start;
    return this.stringStepwise();
  }

  /** The literal from `this.i` (just after its opening quote), one run or escape at a time; throws the exact error. */
  private stringStepwise(): string {
    const s = this.s;
    let out = "";
    for (;;) {
      const at = specialAt(s, this.i);
      if (at < 0) {
        this.i = this.n;
        this.fail("unexpected end of JSON input");
      }
      const c = s.charCodeAt(at);
      if (c === QUOTE) {
        out += s.slice(this.i, at);
        this.i = at + 1;
        return out;
      }
      if (c < SPACE) {
        this.i = at;
        this.fail(`invalid character ${quoteChar(s[at])} in string literal`);
      }
      // A backslash: an escape sequence.
      out += s.slice(this.i, at);
      this.i = at + 1;
      const e = s[this.i];
      if (e !== undefined && Object.hasOwn(ESCAPES, e)) {
        out += ESCAPES[e];
        this.i++;
      } else if (e === "u") {
        this.i++;
        const hex = s.slice(this.i, this.i + 4);
        if (!HEX4.test(hex)) {
          for (let k = 0; k < 4; k++) {
            if (!/[0-9a-fA-F]/.test(s[this.i + k] ?? "")) {
              this.i += k;
              this.eofOr((q) => `invalid character ${q} in \\u hexadecimal character escape`);
            }
          }
        }
        out += String.fromCharCode(parseInt(hex, 16));
        this.i += 4;
      } else {
        this.eofOr((q) => `invalid character ${q} in string escape code`);
      }
    }
  }
}
