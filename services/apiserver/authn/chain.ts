/**
 * Combining methods. `unionAuthenticator` asks each method in order: the first
 * that authenticates decides; errors are remembered and only matter when no
 * method succeeds (then 401). `bearerAuthenticator` takes the token of an
 * `Authorization: Bearer` header to a list of token methods: a token that no
 * method accepts is 401, never anonymous. `withAuthenticatedGroup` adds
 * `system:authenticated` to every user it passes.
 */
import { isStatusError, unauthorized } from "../../../shared/api/status.ts";
import { AUTHENTICATED_GROUP, isAuthenticated, NO_OPINION, type AuthRequest, type AuthResult, type Authenticator, type TokenAuthenticator, type UserInfo } from "./types.ts";
import { bearerTokenOf } from "./headers.ts";

/** Bytes a bearer token may have (a header value the server accepts is smaller anyway). */
export const MAX_TOKEN_BYTES = 16 * 1024;

function firstFailure(errors: unknown[]): Error {
  // A 401 from a method is passed on as is; anything else is an internal failure to check the credential.
  for (const e of errors) if (isStatusError(e) && e.code === 401) return e;
  const other = errors[0];
  return isStatusError(other) ? other : unauthorized();
}

export function unionAuthenticator(name: string, methods: readonly Authenticator[]): Authenticator {
  return { name, authenticate: (req) => authenticateFrom(methods, 0, req, []) };
}

/** Asks methods from `first` on; synchronous while each method asked answers synchronously. */
function authenticateFrom(methods: readonly Authenticator[], first: number, req: AuthRequest, errors: unknown[]): AuthResult | Promise<AuthResult> {
  for (let i = first; i < methods.length; i++) {
    let r: AuthResult | Promise<AuthResult>;
    try {
      r = methods[i].authenticate(req);
    } catch (err) {
      errors.push(err);
      continue;
    }
    if (r instanceof Promise) {
      return r.then(
        (v) => (isAuthenticated(v) ? v : authenticateFrom(methods, i + 1, req, errors)),
        (err: unknown) => {
          errors.push(err);
          return authenticateFrom(methods, i + 1, req, errors);
        },
      );
    }
    if (isAuthenticated(r)) return r;
  }
  if (errors.length > 0) throw firstFailure(errors);
  return NO_OPINION;
}

export function unionTokenAuthenticator(name: string, methods: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    name,
    async authenticateToken(token: string, audiences: readonly string[]): Promise<AuthResult> {
      const errors: unknown[] = [];
      for (const m of methods) {
        try {
          const r = await m.authenticateToken(token, audiences);
          if (isAuthenticated(r)) return r;
        } catch (err) {
          errors.push(err);
        }
      }
      if (errors.length > 0) throw firstFailure(errors);
      return NO_OPINION;
    },
  };
}

/** The token of `Authorization: Bearer <token>`, or undefined (no header, another scheme, an empty token): `bearerTokenOf`'s rules. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return bearerTokenOf(authorization);
}

/** Printable ASCII without spaces: what a bearer token may hold. */
function wellFormedToken(token: string): boolean {
  return token.length <= MAX_TOKEN_BYTES && /^[\x21-\x7e]+$/.test(token);
}

export function bearerAuthenticator(tokens: TokenAuthenticator): Authenticator {
  return {
    name: "bearer",
    async authenticate(req: AuthRequest): Promise<AuthResult> {
      const token = bearerToken(req.headers.get("authorization"));
      if (token === undefined) return NO_OPINION;
      if (!wellFormedToken(token)) throw unauthorized("invalid bearer token");
      const r = await tokens.authenticateToken(token, req.audiences ?? []);
      if (!isAuthenticated(r)) throw unauthorized("invalid bearer token");
      return r;
    },
  };
}

/** A copy of the user with `system:authenticated` among its groups (once). */
export function addAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = user.groups.includes(AUTHENTICATED_GROUP) ? [...user.groups] : [...user.groups, AUTHENTICATED_GROUP];
  return { ...user, groups };
}

export function withAuthenticatedGroup(inner: Authenticator): Authenticator {
  const grouped = (r: AuthResult): AuthResult => (isAuthenticated(r) ? { ...r, user: addAuthenticatedGroup(r.user) } : r);
  return {
    name: inner.name,
    authenticate(req: AuthRequest): AuthResult | Promise<AuthResult> {
      const r = inner.authenticate(req);
      return r instanceof Promise ? r.then(grouped) : grouped(r);
    },
  };
}

/** Same as `withAuthenticatedGroup` for token methods (token reviews report the group too). */
export function tokenWithAuthenticatedGroup(inner: TokenAuthenticator): TokenAuthenticator {
  return {
    name: inner.name,
    async authenticateToken(token: string, audiences: readonly string[]): Promise<AuthResult> {
      const r = await inner.authenticateToken(token, audiences);
      return isAuthenticated(r) ? { ...r, user: addAuthenticatedGroup(r.user) } : r;
    },
  };
}

/** Intersection of two audience lists, in the order of `a`. */
export function intersectAudiences(a: readonly string[], b: readonly string[]): string[] {
  const set = new Set(b);
  return a.filter((x) => set.has(x));
}

/**
 * A token method that does not know audiences (static file, bootstrap, OIDC):
 * valid for the server's API audiences only. With explicit audiences that
 * share none with the API audiences it has no opinion.
 */
export function audienceAgnostic(apiAudiences: readonly string[], inner: TokenAuthenticator): TokenAuthenticator {
  return {
    name: inner.name,
    async authenticateToken(token: string, audiences: readonly string[]): Promise<AuthResult> {
      if (audiences.length === 0) {
        const r = await inner.authenticateToken(token, audiences);
        return isAuthenticated(r) ? { ...r, audiences: [...apiAudiences] } : r;
      }
      const shared = intersectAudiences(audiences, apiAudiences);
      if (shared.length === 0) return NO_OPINION;
      const r = await inner.authenticateToken(token, audiences);
      return isAuthenticated(r) ? { ...r, audiences: shared } : r;
    },
  };
}
