/**
 * The platform's URL library: `url(<string>)`, `isURL(<string>)` and the
 * methods getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery
 * of `kubernetes.URL`. Acceptance follows the platform's request-URI parser:
 * an absolute URI (`scheme:...`) or an absolute path; authority with optional
 * userinfo, a host (bracketed IPv6 allowed) and a numeric port; valid percent
 * escapes; no control characters. The fragment, if any, is not part of the
 * path or query. Error texts are the platform's, without the value.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { CelEvaluationError } from "../errors.ts";

export const URL_TYPE = "kubernetes.URL";

export class ParsedURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    /** The path as written (escaped form). */
    readonly rawPath: string,
    readonly rawQuery: string,
    private readonly source: string,
  ) {}

  hostname(): string {
    const h = this.host;
    if (h.startsWith("[")) {
      const end = h.indexOf("]");
      return end < 0 ? h.slice(1) : h.slice(1, end);
    }
    const colon = h.lastIndexOf(":");
    return colon < 0 ? h : h.slice(0, colon);
  }

  port(): string {
    const h = this.host;
    const colon = h.startsWith("[") ? h.indexOf(":", h.indexOf("]") + 1) : h.lastIndexOf(":");
    return colon < 0 ? "" : h.slice(colon + 1);
  }

  /** The path escaped: the written form when it is a valid escaping of the path, else the default escaping. */
  escapedPath(): string {
    const decoded = unescape(this.rawPath);
    const standard = escapePath(decoded);
    if (this.rawPath === standard) return standard;
    return validEncodedPath(this.rawPath) ? this.rawPath : standard;
  }

  /** Query parameters: key → values, unescaped (`+` is a space); malformed pairs are skipped. */
  query(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const pair of this.rawQuery.split("&")) {
      if (pair === "" || pair.includes(";")) continue;
      const eq = pair.indexOf("=");
      const k = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
      const v = queryUnescape(eq < 0 ? "" : pair.slice(eq + 1));
      if (k === undefined || v === undefined) continue;
      const list = out.get(k);
      if (list) list.push(v);
      else out.set(k, [v]);
    }
    return out;
  }

  toString(): string {
    return this.source;
  }
}

const PARSE_ERROR = "URL parse error during conversion from string";
const fail = (detail: string): never => {
  throw new CelEvaluationError(`${PARSE_ERROR}: ${detail}`);
};

/** True when every `%` starts a two-hex-digit escape. */
function validEscapes(s: string): boolean {
  return !/%(?![0-9a-fA-F]{2})/.test(s);
}

function unescape(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

function queryUnescape(s: string): string | undefined {
  if (!validEscapes(s)) return undefined;
  return unescape(s.replace(/\+/g, " "));
}

/** Characters kept unescaped in a path: unreserved, sub-delims, ':', '@', '/'. */
const PATH_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

function escapePath(s: string): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && PATH_SAFE.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function validEncodedPath(s: string): boolean {
  return validEscapes(s) && /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%[\]]*$/.test(s);
}

const HOST_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=%]*$/;

function parseHost(host: string): void {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    if (end < 0) fail("missing ']' in host");
    const port = host.slice(end + 1);
    if (port !== "" && !/^:[0-9]*$/.test(port)) fail("invalid port after host");
    return;
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0 && !/^[0-9]*$/.test(host.slice(colon + 1))) fail("invalid port after host");
  const name = colon >= 0 ? host.slice(0, colon) : host;
  if (!HOST_CHARS.test(name) || !validEscapes(name)) fail("invalid character in host name");
}

/** Parses a URL as the platform's request-URI parser does; throws CelEvaluationError. */
export function parseURL(s: string): ParsedURL {
  if (s === "") fail("empty url");
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(s)) fail("net/url: invalid control character in URL");
  const hash = s.indexOf("#");
  const requestPart = s;
  const withoutFragment = hash < 0 ? s : s.slice(0, hash);
  let scheme = "";
  let rest = requestPart;
  const m = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(requestPart);
  if (m) {
    scheme = m[1];
    rest = requestPart.slice(m[0].length);
  } else if (/^[^/?]*:/.test(requestPart) && !requestPart.startsWith("/")) {
    fail("missing protocol scheme");
  }
  const q = rest.indexOf("?");
  const beforeQuery = q < 0 ? rest : rest.slice(0, q);
  if (!beforeQuery.startsWith("/")) {
    if (scheme === "") fail("invalid URI for request");
    // An opaque URI (`mailto:x`) is accepted.
    return new ParsedURL(scheme, "", "", "", s);
  }
  // Components are taken from the text without its fragment.
  const restNoFrag = withoutFragment.slice(m ? m[0].length : 0);
  const q2 = restNoFrag.indexOf("?");
  let path = q2 < 0 ? restNoFrag : restNoFrag.slice(0, q2);
  const rawQuery = q2 < 0 ? "" : restNoFrag.slice(q2 + 1);
  let host = "";
  if (scheme !== "" && beforeQuery.startsWith("//")) {
    const authEnd = beforeQuery.indexOf("/", 2);
    const authority = authEnd < 0 ? beforeQuery.slice(2) : beforeQuery.slice(2, authEnd);
    const at = authority.lastIndexOf("@");
    host = at < 0 ? authority : authority.slice(at + 1);
    if (at >= 0 && !/^[A-Za-z0-9\-._~!$&'()*+,;=:%]*$/.test(authority.slice(0, at))) fail("net/url: invalid userinfo");
    parseHost(host);
    const pathStart = path.indexOf("/", 2);
    path = pathStart < 0 ? "" : path.slice(pathStart);
  }
  if (!validEscapes(beforeQuery)) fail("invalid URL escape");
  return new ParsedURL(scheme, host, path, rawQuery, s);
}

const succeeds = (s: string): boolean => {
  try {
    parseURL(s);
    return true;
  } catch {
    return false;
  }
};

/** Registers kubernetes.URL and its functions. */
export function registerURL(env: Environment): Environment {
  const U = URL_TYPE;
  return env
    .registerType(U, ParsedURL)
    .registerFunction(`url(string): ${U}`, (s: string) => parseURL(s))
    .registerFunction("isURL(string): bool", succeeds)
    .registerFunction(`${U}.getScheme(): string`, (u: ParsedURL) => u.scheme)
    .registerFunction(`${U}.getHost(): string`, (u: ParsedURL) => u.host)
    .registerFunction(`${U}.getHostname(): string`, (u: ParsedURL) => u.hostname())
    .registerFunction(`${U}.getPort(): string`, (u: ParsedURL) => u.port())
    .registerFunction(`${U}.getEscapedPath(): string`, (u: ParsedURL) => u.escapedPath())
    .registerFunction(`${U}.getQuery(): map<string, list<string>>`, (u: ParsedURL) => u.query());
}
