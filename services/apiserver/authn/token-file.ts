/**
 * Static token file (`--token-auth-file`): CSV records `token,user,uid[,groups...]`.
 * The fourth and later columns are group names; a quoted column may hold
 * several comma-separated groups (`"g1,g2"`). Read once at start; tokens are
 * kept only as SHA-256 digests, and the lookup compares digests.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseCsv } from "./csv.ts";
import { NO_OPINION, type AuthResult, type TokenAuthenticator, type UserInfo } from "./types.ts";

function digest(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface TokenFileEntry {
  token: string;
  user: UserInfo;
}

/** Parses the file's text; errors name the line, never a token. */
export function parseTokenFile(text: string, source = "token file"): TokenFileEntry[] {
  const out: TokenFileEntry[] = [];
  const seen = new Set<string>();
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    throw new Error(`${source}: ${(err as Error).message}`, { cause: err });
  }
  for (const r of records) {
    if (r.fields.length < 3) throw new Error(`${source} must have at least 3 columns (token, user name, user uid), found ${r.fields.length} on line ${r.line}`);
    const [token, username, uid, ...rest] = r.fields;
    if (token === "") continue; // an empty token can never be presented
    const d = digest(token);
    if (seen.has(d)) throw new Error(`${source}: duplicate token on line ${r.line}`);
    seen.add(d);
    const groups = rest.flatMap((g) => g.split(",")).map((g) => g.trim()).filter((g) => g !== "");
    out.push({ token, user: { username, uid, groups } });
  }
  return out;
}

export class TokenFileAuthenticator implements TokenAuthenticator {
  readonly name = "token-file";
  private readonly byDigest = new Map<string, UserInfo>();

  constructor(entries: readonly TokenFileEntry[]) {
    for (const e of entries) this.byDigest.set(digest(e.token), e.user);
  }

  static fromFile(path: string): TokenFileAuthenticator {
    return new TokenFileAuthenticator(parseTokenFile(readFileSync(path, "utf8"), `token file ${path}`));
  }

  async authenticateToken(token: string): Promise<AuthResult> {
    const user = this.byDigest.get(digest(token));
    if (!user) return NO_OPINION;
    return { user: { ...user, groups: [...user.groups] } };
  }
}
