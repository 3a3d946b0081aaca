/**
 * Authentication and authorization of the controller manager's HTTPS port, delegated
 * to the API server as the platform's: flags `--authentication-kubeconfig` (TokenReview;
 * empty: every token request is anonymous), `--authorization-kubeconfig`
 * (SubjectAccessReview; empty: every request not always allowed is forbidden),
 * `--client-ca-file` (client certificates), `--authorization-always-allow-paths`
 * (default /healthz, /readyz, /livez: open without authorization), the review caches'
 * TTLs (10 s each), and the `system:masters` group always allowed.
 *
 * `checkAccess` answers per request: undefined to serve it, or the Status to send:
 * 401 `Unauthorized` for a bad token or certificate, 403 with the platform's message
 * `forbidden: User "<name>" cannot <verb> path "<path>"` for a refused path.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import type { FlagSpec, FlagValues } from "../../../shared/cli/flags.ts";
import { DelegatedAuthenticatorAuthorizer } from "../../../shared/client/delegated-auth.ts";
import { HttpsObjectClient } from "../../../shared/client/https-object-client.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";

export const DELEGATED_ACCESS_FLAGS: Record<string, FlagSpec> = {
  "authentication-kubeconfig": { kind: "string", help: "kubeconfig file pointing at the 'core' API server with enough rights to create tokenreviews. This is optional. If empty, all token requests are considered to be anonymous." },
  "authorization-kubeconfig": { kind: "string", help: "kubeconfig file pointing at the 'core' API server with enough rights to create subjectaccessreviews. This is optional. If empty, all requests not skipped by authorization are forbidden." },
  "authorization-always-allow-paths": { kind: "list", default: ["/healthz", "/readyz", "/livez"], help: "A list of HTTP paths to skip during authorization, i.e. these are authorized without contacting the 'core' API server." },
  "client-ca-file": { kind: "string", help: "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate." },
  "authentication-token-webhook-cache-ttl": { kind: "duration", default: 10_000, help: "The duration to cache responses from the webhook token authenticator." },
  "authorization-webhook-cache-authorized-ttl": { kind: "duration", default: 10_000, help: "The duration to cache 'authorized' responses from the webhook authorizer." },
  "authorization-webhook-cache-unauthorized-ttl": { kind: "duration", default: 10_000, help: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
};

/** The group every request of is allowed (the platform's emergency superuser group). */
const ALWAYS_ALLOW_GROUPS = ["system:masters"];

export interface AccessDenial {
  status: 401 | 403 | 500;
  body: Record<string, unknown>;
}

export interface DelegatedAccess {
  /** The client CA PEM for the TLS server (request a certificate, do not require one). */
  clientCaPem?: string;
  checkAccess(req: IncomingMessage, path: string): Promise<AccessDenial | undefined>;
  close(): void;
}

function status(code: 401 | 403 | 500, reason: string, message: string): AccessDenial {
  return { status: code, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, details: {}, code } };
}

const VERBS: Record<string, string> = { GET: "get", HEAD: "get", POST: "post", PUT: "put", PATCH: "patch", DELETE: "delete" };

/** True when `path` is allowed by one of the patterns (a trailing `*` matches a prefix). */
export function pathAllowed(path: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith("*") ? path.startsWith(p.slice(0, -1)) : path === p));
}

export function delegatedAccess(flags: FlagValues, profile: PlatformProfile): DelegatedAccess {
  const file = (name: string) => (flags[name] as string | undefined) || undefined;
  const authnClient = file("authentication-kubeconfig") ? HttpsObjectClient.fromKubeconfig(file("authentication-kubeconfig")!) : undefined;
  const authzClient = file("authorization-kubeconfig") ? HttpsObjectClient.fromKubeconfig(file("authorization-kubeconfig")!) : undefined;
  const alwaysAllow = flags["authorization-always-allow-paths"] as string[];
  const authn = new DelegatedAuthenticatorAuthorizer({
    profile,
    transport: () => authnClient?.transport,
    anonymous: true,
    tokenWebhook: authnClient !== undefined,
    tokenCacheTtlMs: flags["authentication-token-webhook-cache-ttl"] as number,
    authorizationMode: "Webhook",
    authorizedTtlMs: 0,
    unauthorizedTtlMs: 0,
  });
  const authz = new DelegatedAuthenticatorAuthorizer({
    profile,
    transport: () => authzClient?.transport,
    anonymous: true,
    tokenWebhook: false,
    tokenCacheTtlMs: 0,
    authorizationMode: "Webhook",
    authorizedTtlMs: flags["authorization-webhook-cache-authorized-ttl"] as number,
    unauthorizedTtlMs: flags["authorization-webhook-cache-unauthorized-ttl"] as number,
  });
  const clientCaFile = file("client-ca-file");
  return {
    clientCaPem: clientCaFile ? readFileSync(clientCaFile, "utf8") : undefined,
    async checkAccess(req, path) {
      const who = await authn.authenticate(req);
      if (!who.ok) return status(401, "Unauthorized", "Unauthorized");
      if (pathAllowed(path, alwaysAllow)) return undefined;
      if (who.user.groups.some((g) => ALWAYS_ALLOW_GROUPS.includes(g))) return undefined;
      const verb = VERBS[req.method ?? "GET"] ?? (req.method ?? "get").toLowerCase();
      const refused = `forbidden: User ${JSON.stringify(who.user.username)} cannot ${verb} path ${JSON.stringify(path)}`;
      if (!authzClient) return status(403, "Forbidden", refused);
      const decision = await authz.review(who.user, { nonResourceAttributes: { path, verb } });
      if (decision.allowed) return undefined;
      if (decision.error) return status(500, "InternalError", `Internal error occurred: ${decision.error}`);
      return status(403, "Forbidden", decision.reason ? `${refused}: ${decision.reason}` : refused);
    },
    close() {
      authnClient?.close();
      authzClient?.close();
    },
  };
}
