/**
 * Authenticating proxy (`--requestheader-*`): the headers are trusted only
 * from a client whose certificate chain verifies against the request-header
 * CA and, when allowed names are configured, whose CN is one of them. The
 * certificate is checked before any header is read. The first username header
 * with a value gives the user (none: no opinion); every line of the group
 * headers is a group; headers with the extra prefix give extra keys (prefix
 * removed, lowercased, percent-decoded) with their values as given.
 */
import type { X509Certificate } from "node:crypto";
import { unauthorized } from "../../../shared/api/status.ts";
import { parseCertificateBundle, subjectNames, verifyClientChain } from "./cert-verify.ts";
import type { RequestHeaders } from "./headers.ts";
import { NO_OPINION, type AuthRequest, type AuthResult, type Authenticator, type UserInfo } from "./types.ts";

export interface RequestHeaderConfig {
  /** PEM bundle of `--requestheader-client-ca-file`. */
  clientCaPem: string;
  allowedNames: readonly string[];
  usernameHeaders: readonly string[];
  uidHeaders?: readonly string[];
  groupHeaders: readonly string[];
  extraHeaderPrefixes: readonly string[];
}

/** Percent-decodes an extra key; a malformed escape leaves the key as it is. */
export function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

export function userFromHeaders(h: RequestHeaders, c: Pick<RequestHeaderConfig, "usernameHeaders" | "uidHeaders" | "groupHeaders" | "extraHeaderPrefixes">): UserInfo | undefined {
  let username: string | undefined;
  for (const name of c.usernameHeaders) {
    const v = h.get(name);
    if (v !== undefined && v !== "") {
      username = v;
      break;
    }
  }
  if (username === undefined) return undefined;
  const groups = c.groupHeaders.flatMap((g) => h.values(g));
  const user: UserInfo = { username, groups };
  for (const name of c.uidHeaders ?? []) {
    const v = h.get(name);
    if (v !== undefined && v !== "") {
      user.uid = v;
      break;
    }
  }
  const extra: Record<string, string[]> = {};
  for (const header of h.names()) {
    for (const prefix of c.extraHeaderPrefixes) {
      const p = prefix.toLowerCase();
      if (p === "" || !header.startsWith(p)) continue;
      const key = unescapeExtraKey(header.slice(p.length)); // names are lowercase already
      if (key === "") continue;
      (extra[key] ??= []).push(...h.values(header));
    }
  }
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

export class RequestHeaderAuthenticator implements Authenticator {
  readonly name = "requestheader";
  private readonly roots: X509Certificate[];

  constructor(private readonly c: RequestHeaderConfig, private readonly now: () => Date = () => new Date()) {
    if (c.usernameHeaders.length === 0) throw new Error("--requestheader-username-headers is required with --requestheader-client-ca-file");
    this.roots = parseCertificateBundle(c.clientCaPem, "request-header client CA bundle");
  }

  /** Header names this method reads: removed from a request it authenticates. */
  get headerNames(): string[] {
    return [...this.c.usernameHeaders, ...(this.c.uidHeaders ?? []), ...this.c.groupHeaders];
  }

  authenticate(req: AuthRequest): AuthResult {
    if (req.peerCertificates.length === 0) return NO_OPINION;
    const check = verifyClientChain(req.peerCertificates, this.roots, this.now());
    if (!check.ok) throw unauthorized(`request-header client certificate: ${check.reason ?? "invalid"}`);
    if (this.c.allowedNames.length > 0) {
      const cn = subjectNames(req.peerCertificates[0]).commonName ?? "";
      if (!this.c.allowedNames.includes(cn)) throw unauthorized("request-header client certificate: common name is not allowed");
    }
    const user = userFromHeaders(req.headers, this.c);
    return user ? { user } : NO_OPINION;
  }
}
