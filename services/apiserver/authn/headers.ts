/**
 * Request headers as sent, one entry per header line. The fetch `Headers`
 * joins repeated headers with ", ", which would merge `X-Remote-Group: a,b`
 * and two lines `a` and `b`; the authenticating proxy and impersonation need
 * each line, so they read the raw header list of the node request.
 */
import type { IncomingMessage } from "node:http";

export class RequestHeaders {
  /** Lowercased names and their values, one entry per header line, in order. */
  private readonly keys: string[] = [];
  private readonly vals: string[] = [];

  constructor(lines: Iterable<readonly [string, string]>) {
    for (const [k, v] of lines) {
      this.keys.push(k.toLowerCase());
      this.vals.push(v);
    }
  }

  /**
   * From node's `rawHeaders` (name, value, name, value, ...), or from fetch headers when
   * there is none. Read once per request: authentication and impersonation share it.
   */
  static from(req: Request | undefined, incoming?: IncomingMessage): RequestHeaders {
    const owner: object | undefined = incoming ?? req;
    const known = owner && perRequest.get(owner);
    if (known) return known;
    const raw = incoming?.rawHeaders;
    let headers: RequestHeaders;
    if (raw && raw.length > 0) {
      headers = new RequestHeaders([]);
      for (let i = 0; i + 1 < raw.length; i += 2) {
        headers.keys.push(raw[i].toLowerCase());
        headers.vals.push(raw[i + 1]);
      }
    } else {
      headers = new RequestHeaders(req ? [...req.headers.entries()] : []);
    }
    if (owner) perRequest.set(owner, headers);
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
    const i = this.keys.indexOf(name.toLowerCase());
    return i < 0 ? undefined : this.vals[i];
  }

  /** Every line's value of a header, in order. */
  values(name: string): string[] {
    const n = name.toLowerCase();
    const out: string[] = [];
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] === n) out.push(this.vals[i]);
    return out;
  }

  /** Lowercased names of every header, each once, in order of first appearance. */
  names(): string[] {
    return [...new Set(this.keys)];
  }

  /** Whether a header's lowercased name passes `test` (no list of names made). */
  someName(test: (lowercasedName: string) => boolean): boolean {
    return this.keys.some(test);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }
}

/** The headers of a request as read once (keyed by its node request, else its fetch Request). */
const perRequest = new WeakMap<object, RequestHeaders>();

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
  const parts = (authorization?.trim() ?? "").split(" ");
  if (parts.length < 3 || parts[0].toLowerCase() !== "bearer" || parts[1] !== "") return undefined;
  return EXTRA_SPACE_BEFORE_TOKEN_WARNING;
}
