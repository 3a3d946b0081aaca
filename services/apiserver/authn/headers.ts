/**
 * Request headers as sent, one entry per header line. The fetch `Headers`
 * joins repeated headers with ", ", which would merge `X-Remote-Group: a,b`
 * and two lines `a` and `b`; the authenticating proxy and impersonation need
 * each line, so they read the raw header list of the node request.
 */
import type { IncomingMessage } from "node:http";

export class RequestHeaders {
  private readonly lines: ReadonlyArray<readonly [string, string]>;

  constructor(lines: Iterable<readonly [string, string]>) {
    this.lines = [...lines].map(([k, v]) => [k.toLowerCase(), v] as const);
  }

  /** From node's `rawHeaders` (name, value, name, value, ...), or from fetch headers when there is none. */
  static from(req: Request | undefined, incoming?: IncomingMessage): RequestHeaders {
    const raw = incoming?.rawHeaders;
    if (raw && raw.length > 0) {
      const lines: Array<[string, string]> = [];
      for (let i = 0; i + 1 < raw.length; i += 2) lines.push([raw[i], raw[i + 1]]);
      return new RequestHeaders(lines);
    }
    return new RequestHeaders(req ? [...req.headers.entries()] : []);
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
    return this.lines.find(([k]) => k === n)?.[1];
  }

  /** Every line's value of a header, in order. */
  values(name: string): string[] {
    const n = name.toLowerCase();
    return this.lines.filter(([k]) => k === n).map(([, v]) => v);
  }

  /** Lowercased names of every header, each once, in order of first appearance. */
  names(): string[] {
    return [...new Set(this.lines.map(([k]) => k))];
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }
}

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
