/**
 * Continue tokens for chunked lists: base64url JSON holding the list's revision and
 * the key to start after. They expire after `ttlMs` (default 5 minutes) → 410.
 */
export interface ContinueToken {
  revision: number;
  /** First key (inclusive) of the next chunk. */
  startKey: string;
  issuedAtMs: number;
}

export const CONTINUE_TTL_MS = 5 * 60 * 1000;

export function encodeContinue(token: ContinueToken): string {
  const json = JSON.stringify({ v: 1, rv: token.revision, start: token.startKey, t: token.issuedAtMs });
  return Buffer.from(json, "utf8").toString("base64url");
}

export class InvalidContinueError extends Error {}

/** Parses a token; throws InvalidContinueError on anything malformed. */
export function decodeContinue(text: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    throw new InvalidContinueError("continue key is not valid: illegal base64 data or JSON");
  }
  if (typeof parsed !== "object" || parsed === null) throw new InvalidContinueError("continue key is not valid");
  const p = parsed as Record<string, unknown>;
  if (p.v !== 1 || typeof p.rv !== "number" || typeof p.start !== "string" || typeof p.t !== "number" || !Number.isSafeInteger(p.rv) || p.rv <= 0) {
    throw new InvalidContinueError("continue key is not valid: incorrect encoded start resourceVersion");
  }
  return { revision: p.rv, startKey: p.start, issuedAtMs: p.t };
}

export function isExpired(token: ContinueToken, nowMs: number, ttlMs = CONTINUE_TTL_MS): boolean {
  return nowMs - token.issuedAtMs > ttlMs;
}
