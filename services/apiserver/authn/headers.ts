/**
 * Request headers as sent, one entry per header line. The fetch `Headers`
 * joins repeated headers with ", ", which would merge `X-Remote-Group: a,b`
 * and two lines `a` and `b`; the authenticating proxy and impersonation need
 * each line, so they read the raw header list of the node request.
 */
import type { IncomingMessage } from "node:http";

export class RequestHeaders {
  /**
   * Names as sent and their values, one line per pair (name, value, name, value, ...), in
   * order: node's `rawHeaders` itself when there is one (never changed after parsing).
   * Names are compared without case; the lowercased list is made only for `names()`.
   */
  private readonly lines: readonly string[];
  private lowered?: string[];

  /** `lines`: pairs, or a flat name/value list kept as it is (the caller never changes it). */
  constructor(lines: Iterable<readonly [string, string]> | { rawLines: readonly string[] }) {
    if ("rawLines" in lines) {
      this.lines = lines.rawLines.length % 2 === 0 ? lines.rawLines : lines.rawLines.slice(0, lines.rawLines.length - 1);
      return;
    }
    const flat: string[] = [];
    for (const [k, v] of lines) flat.push(k, v);
    this.lines = flat;
  }

  /**
   * From node's `rawHeaders` (name, value, name, value, ...), or from fetch headers when
   * there is none. Read once per request: authentication and impersonation share it.
   */
  static from(req: Request | undefined, incoming?: IncomingMessage): RequestHeaders {
    const owner = (incoming ?? req) as HeadersOwner | undefined;
    const known = owner?.[READ_HEADERS];
    if (known) return known;
    const raw = incoming?.rawHeaders;
    const headers = new RequestHeaders(raw && raw.length > 0 ? { rawLines: raw } : req ? [...req.headers.entries()] : []);
    if (owner) owner[READ_HEADERS] = headers;
    return headers;
  }

  static of(record: Record<string, string | readonly string[]>): RequestHeaders {
    const lines: Array<[string, string]> = [];
    for (const [k, v] of Object.entries(record)) {
      if (typeof v === "string") lines.push([k, v]);
      else for (const one of v) lines.push([k, one]);
    }
    return new RequestHeaders(lines);
  }

  /** The first value of a header (case-insensitive name). */
  get(name: string): string | undefined {
    const n = name.toLowerCase();
    const lines = this.lines;
    for (let i = 0; i < lines.length; i += 2) if (sameName(lines[i], n)) return lines[i + 1];
    return undefined;
  }

  /** Every line's value of a header, in order. */
  values(name: string): string[] {
    const n = name.toLowerCase();
    const lines = this.lines;
    const out: string[] = [];
    for (let i = 0; i < lines.length; i += 2) if (sameName(lines[i], n)) out.push(lines[i + 1]);
    return out;
  }

  /** Lowercased names of every header, each once, in order of first appearance. */
  names(): string[] {
    return [...new Set(this.lowercasedNames())];
  }

  /** Whether a header's lowercased name passes `test` (no list of names made). */
  someName(test: (lowercasedName: string) => boolean): boolean {
    return this.lowercasedNames().some(test);
  }

  /**
   * Whether a header whose name starts with `prefix` (lowercase) passes `test` (given the
   * lowercased name): only names with that prefix are lowercased, and no list is made.
   */
  someNameWithPrefix(prefix: string, test: (lowercasedName: string) => boolean): boolean {
    const lines = this.lines;
    const first = prefix.charCodeAt(0);
    for (let i = 0; i < lines.length; i += 2) {
      const raw = lines[i];
      if (raw.length < prefix.length || (raw.charCodeAt(0) | 0x20) !== first) continue;
      const lower = raw.toLowerCase();
      if (lower.startsWith(prefix) && test(lower)) return true;
    }
    return false;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  private lowercasedNames(): string[] {
    if (!this.lowered) {
      const lowered: string[] = [];
      for (let i = 0; i < this.lines.length; i += 2) lowered.push(this.lines[i].toLowerCase());
      this.lowered = lowered;
    }
    return this.lowered;
  }
}

/** Whether a header name as sent is `lowercased` (compared without case; the length first). */
function sameName(raw: string, lowercased: string): boolean {
  return raw.length === lowercased.length && (raw === lowercased || raw.toLowerCase() === lowercased);
}

/**
 * The headers of a request as read once, kept on its node request (else its fetch Request)
 * under a symbol: a property read, where a WeakMap entry per request cost a table insert
 * and the collector's ephemeron work.
 */
const READ_HEADERS = Symbol("readHeaders");
type HeadersOwner = { [READ_HEADERS]?: RequestHeaders };

/**
 * The token of an `Authorization` header by the platform's rules, or undefined when
 * the header carries none: the value is trimmed, then split on single spaces into
 * at most three parts; the first must be `bearer` (any case) and the token is the
 * second. So `Bearer  <token>` (two spaces: an empty second part) and
 * `Bearer<TAB><token>` (one part) carry no token and the request stays anonymous.
 */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  const auth = authorization?.trim() ?? "";
  if (auth === "") return undefined;
  const first = auth.indexOf(" ");
  if (first < 0 || auth.slice(0, first).toLowerCase() !== "bearer") return undefined;
  const rest = auth.slice(first + 1);
  const second = rest.indexOf(" ");
  const token = second < 0 ? rest : rest.slice(0, second);
  return token === "" ? undefined : token;
}

/** The platform's warning for `Bearer  <token>`: the header is ignored (the request stays anonymous). */
export const EXTRA_SPACE_BEFORE_TOKEN_WARNING = "the provided Authorization header contains extra space before the bearer token, and is ignored";

/**
 * The warning an `Authorization` header earns, by the platform's rule: a bearer
 * header whose token part is empty because of a second space (`Bearer  <token>`).
 * `Bearer<TAB><token>` and a lone `Bearer` carry no token and earn no warning.
 */
export function authorizationHeaderWarning(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const parts = (authorization?.trim() ?? "").split(" ");
  if (parts.length < 3 || parts[0].toLowerCase() !== "bearer" || parts[1] !== "") return undefined;
  return EXTRA_SPACE_BEFORE_TOKEN_WARNING;
}
