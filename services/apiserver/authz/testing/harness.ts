/**
 * Test support for the authorization suites: a real replica over the local
 * store whose `authorize` is a built chain, registry admission wired to the
 * escalation and NodeRestriction checks, HTTPS calls as users identified by
 * client certificates, and a local HTTPS server with its own CA.
 */
import { call as httpsCall, TempDir as BaseTempDir, type CallOptions, type HttpResult } from "../../../../test/support/https-call.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { makeKinds as apiextensionsKinds } from "../../../../shared/api/groups/apiextensions-v1.ts";
import { coreV1Kinds } from "../../../../shared/api/groups/core-v1.ts";
import { kinds as coordinationKinds } from "../../../../shared/api/groups/coordination-v1.ts";
import { makeKinds as rbacKinds } from "../../../../shared/api/groups/rbac-v1.ts";
import { getProfile, type PlatformProfile } from "../../../../shared/platform/index.ts";
import { createCA, createClientCert, createServingCert, type CertificateAuthority, type KeyPairPem } from "../../server/certs.ts";
import type { Replica } from "../../server/replica.ts";
import { startTestApiserver } from "../../../../test/support/apiserver.ts";
import { buildAuthorizer, type AuthorizationHandle, type AuthorizerDeps } from "../chain.ts";
import { nodeRestriction } from "../../admission/plugins/node-restriction.ts";
import type { AuthorizationFlags } from "../options.ts";
import { rbacAdmission } from "../rbac/admission.ts";

export const profile: PlatformProfile = getProfile();

export { type HttpResult, type CallOptions } from "../../../../test/support/https-call.ts";

export function call(url: string, ca: string, o: CallOptions): Promise<HttpResult> {
  return httpsCall(url, ca, o);
}

export class TempDir extends BaseTempDir {
  constructor() {
    super("authz-test-");
  }
}

let sharedPki: Promise<{ ca: CertificateAuthority; serving: KeyPairPem }> | undefined;

export function clusterPki(): Promise<{ ca: CertificateAuthority; serving: KeyPairPem }> {
  sharedPki ??= (async () => {
    const ca = await createCA({ commonName: "authz-test-ca" });
    return { ca, serving: await createServingCert(ca) };
  })();
  return sharedPki;
}

export interface AuthzServer {
  replica: Replica;
  handle: AuthorizationHandle;
  url: string;
  ca: CertificateAuthority;
  /** A client certificate for a user (cached per user and groups). */
  as(user: string, groups?: string[]): Promise<KeyPairPem>;
  call(client: KeyPairPem | undefined, method: string, path: string, body?: unknown): Promise<HttpResult>;
  close(): Promise<void>;
}

export interface AuthzServerOptions {
  deps?: Partial<AuthorizerDeps>;
  /** Add the RBAC escalation and NodeRestriction checks to the replica's admission chain (default true). */
  admission?: boolean;
}

export async function startAuthzServer(flags: AuthorizationFlags, o: AuthzServerOptions = {}): Promise<AuthzServer> {
  const { ca, serving } = await clusterPki();
  // The chain needs the replica's catalog; the replica needs the chain: bind late.
  const ref: { handle?: AuthorizationHandle } = {};
  // The replica harness shared with the API tests (test/support/apiserver.ts), with this suite's chain.
  const api = await startTestApiserver({
    profile,
    // Every replica serves CustomResourceDefinitions (its CRD controller watches them).
    kinds: [...coreV1Kinds(profile), ...rbacKinds(profile), ...coordinationKinds, ...apiextensionsKinds(profile)],
    tls: { key: serving.keyPem, cert: serving.certPem, clientCa: ca.certPem },
    authorize: async (user, info, req) => {
      if (!ref.handle) throw new Error("authorizer not ready");
      await ref.handle.authorize(user, info, req);
    },
  });
  const replica = api.replica;
  const h = await buildAuthorizer(flags, { profile, catalog: replica.catalog, ...(o.deps ?? {}) });
  ref.handle = h;
  if (o.admission !== false) {
    const source = h.rbacSource;
    replica.admission.addInternal(nodeRestriction({ profile }));
    if (source) replica.admission.addInternal(rbacAdmission({ profile, authorizer: h.authorizer, source, catalog: replica.catalog }));
  }
  const certs = new Map<string, Promise<KeyPairPem>>();
  return {
    replica,
    handle: h,
    url: replica.url,
    ca,
    as(user, groups = []) {
      const key = `${user}|${groups.join(",")}`;
      let c = certs.get(key);
      if (!c) certs.set(key, (c = createClientCert(ca, { user, groups })));
      return c;
    },
    call: (client, method, path, body) => call(replica.url, ca.certPem, { method, path, body, client }),
    async close() {
      h.close();
      await api.close();
    },
  };
}

/** Polls `fn` until it returns true (watch-fed state catches up asynchronously). */
export async function eventually(fn: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface LocalHttps {
  url: string;
  ca: CertificateAuthority;
  server: Server;
  close(): Promise<void>;
}

/** A local HTTPS server on 127.0.0.1 (port 0) with its own CA. */
export async function startLocalHttps(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<LocalHttps> {
  const ca = await createCA({ commonName: "webhook-ca" });
  const serving = await createServingCert(ca);
  const server = createHttpsServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/authorize`,
    ca,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A webhook client configuration file (kubeconfig format) for a local server. */
export function webhookKubeconfig(dir: TempDir, name: string, server: string, caPem: string): string {
  const text = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: authz",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString("base64")}`,
    "users:",
    "- name: apiserver",
    "  user:",
    "    token: secret-token",
    "contexts:",
    "- name: default",
    "  context: {cluster: authz, user: apiserver}",
    "current-context: default",
    "",
  ].join("\n");
  return dir.write(name, text);
}
