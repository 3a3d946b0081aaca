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
import { hasOwn, setOwn } from "./values.ts";

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

interface ObjectFrame {
  kind: "object";
  value: Record<string, unknown>;
  path: string;
  key: string;
}
interface ArrayFrame {
  kind: "array";
  value: unknown[];
  path: string;
}
type Frame = ObjectFrame | ArrayFrame;

function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  return `'${JSON.stringify(c).slice(1, -1)}'`;
}

const WS = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Parses JSON text strictly; throws DecodeError. */
export function decodeJsonStrict(text: string, opts: DecodeOptions = {}): DecodeResult {
  return new Parser(text, opts).parse();
}

class Parser {
  private i = 0;
  private readonly maxDepth: number;
  private readonly big: boolean;
  private readonly duplicates: string[] = [];

  constructor(
    private readonly s: string,
    opts: DecodeOptions,
  ) {
    this.maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.big = (opts.bigIntegers ?? "bigint") === "bigint";
  }

  private fail(message: string, at = this.i): never {
    throw new DecodeError(message, this.s, at);
  }

  private eofOr(message: (c: string) => string): never {
    if (this.i >= this.s.length) this.fail("unexpected end of JSON input");
    this.fail(message(quoteChar(this.s[this.i])));
  }

  private skipWs(): void {
    while (this.i < this.s.length && WS.has(this.s[this.i])) this.i++;
  }

  parse(): DecodeResult {
    const stack: Frame[] = [];
    for (;;) {
      this.skipWs();
      let value: unknown;
      const c = this.s[this.i];
      if (c === "{" || c === "[") {
        if (stack.length >= this.maxDepth) this.fail(`exceeded max depth of ${this.maxDepth} nesting levels`);
        this.i++;
        const path = childPathOf(stack);
        this.skipWs();
        if (c === "{") {
          const frame: ObjectFrame = { kind: "object", value: {}, path, key: "" };
          if (this.s[this.i] === "}") {
            this.i++;
            value = frame.value;
          } else {
            stack.push(frame);
            this.readKey(frame);
            continue;
          }
        } else if (this.s[this.i] === "]") {
          this.i++;
          value = [];
        } else {
          stack.push({ kind: "array", value: [], path });
          continue;
        }
      } else {
        value = this.scalar();
      }
      // Attach the finished value to its parents, closing containers as they end.
      for (;;) {
        const top = stack[stack.length - 1];
        if (!top) {
          this.skipWs();
          if (this.i < this.s.length) this.fail(`invalid character ${quoteChar(this.s[this.i])} after top-level value`);
          return { value, duplicates: this.duplicates, messages: this.duplicates.map(duplicateFieldMessage) };
        }
        this.skipWs();
        const next = this.s[this.i];
        if (top.kind === "object") {
          if (hasOwn(top.value, top.key)) this.duplicates.push(childPath(top.path, top.key));
          setOwn(top.value, top.key, value);
          if (next === ",") {
            this.i++;
            this.skipWs();
            this.readKey(top);
            break;
          }
          if (next !== "}") this.eofOr((q) => `invalid character ${q} after object key:value pair`);
        } else {
          top.value.push(value);
          if (next === ",") {
            this.i++;
            break;
          }
          if (next !== "]") this.eofOr((q) => `invalid character ${q} after array element`);
        }
        this.i++;
        stack.pop();
        value = top.value;
      }
    }
  }

  /** Reads `"key" :` into the frame. */
  private readKey(frame: ObjectFrame): void {
    if (this.s[this.i] !== '"') this.eofOr((q) => `invalid character ${q} looking for beginning of object key string`);
    frame.key = this.string();
    this.skipWs();
    if (this.s[this.i] !== ":") this.eofOr((q) => `invalid character ${q} after object key`);
    this.i++;
  }

  private scalar(): unknown {
    const c = this.s[this.i];
    if (c === '"') return this.string();
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    if (c === "t") return this.literal("true", true);
    if (c === "f") return this.literal("false", false);
    if (c === "n") return this.literal("null", null);
    return this.eofOr((q) => `invalid character ${q} looking for beginning of value`);
  }

  private literal<T>(word: string, value: T): T {
    for (let k = 0; k < word.length; k++, this.i++) {
      if (this.s[this.i] !== word[k]) this.eofOr((q) => `invalid character ${q} in literal ${word} (expecting '${word[k]}')`);
    }
    return value;
  }

  private digits(): number {
    const start = this.i;
    while (this.i < this.s.length && this.s[this.i] >= "0" && this.s[this.i] <= "9") this.i++;
    return this.i - start;
  }

  private number(): number | bigint {
    const start = this.i;
    if (this.s[this.i] === "-") this.i++;
    if (this.s[this.i] === "0") this.i++;
    else if (this.digits() === 0) this.eofOr((q) => `invalid character ${q} in numeric literal`);
    let integral = true;
    if (this.s[this.i] === ".") {
      integral = false;
      this.i++;
      if (this.digits() === 0) this.eofOr((q) => `invalid character ${q} after decimal point in numeric literal`);
    }
    if (this.s[this.i] === "e" || this.s[this.i] === "E") {
      integral = false;
      this.i++;
      if (this.s[this.i] === "+" || this.s[this.i] === "-") this.i++;
      if (this.digits() === 0) this.eofOr((q) => `invalid character ${q} in exponent of numeric literal`);
    }
    const text = this.s.slice(start, this.i);
    const n = Number(text);
    if (integral && !Number.isSafeInteger(n) && this.big) return BigInt(text);
    if (!Number.isFinite(n)) this.fail(`cannot unmarshal number ${text} into a float64 value`, start);
    return n === 0 ? 0 : n;
  }

  private string(): string {
    this.i++; // opening quote
    let out = "";
    let run = this.i;
    for (;;) {
      if (this.i >= this.s.length) this.fail("unexpected end of JSON input");
      const c = this.s[this.i];
      if (c === '"') {
        out += this.s.slice(run, this.i);
        this.i++;
        return out;
      }
      if (c < " ") this.fail(`invalid character ${quoteChar(c)} in string literal`);
      if (c !== "\\") {
        this.i++;
        continue;
      }
      out += this.s.slice(run, this.i);
      this.i++;
      const e = this.s[this.i];
      if (e !== undefined && hasOwn(ESCAPES, e)) {
        out += ESCAPES[e];
        this.i++;
      } else if (e === "u") {
        this.i++;
        const hex = this.s.slice(this.i, this.i + 4);
        for (let k = 0; k < 4; k++) {
          if (!/[0-9a-fA-F]/.test(this.s[this.i + k] ?? "")) {
            this.i += k;
            this.eofOr((q) => `invalid character ${q} in \\u hexadecimal character escape`);
          }
        }
        out += String.fromCharCode(parseInt(hex, 16));
        this.i += 4;
      } else {
        this.eofOr((q) => `invalid character ${q} in string escape code`);
      }
      run = this.i;
    }
  }
}

/** The path of the value about to be parsed, from the frames above it. */
function childPathOf(stack: Frame[]): string {
  const top = stack[stack.length - 1];
  if (!top) return "";
  return top.kind === "object" ? childPath(top.path, top.key) : indexPath(top.path, top.value.length);
}
