/**
 * Test support for the authentication suites: a CA and serving certificate, a
 * real replica (the shared test replica of test/support/apiserver.ts) whose `authenticate` is a built chain
 * followed by impersonation, routes that echo the user and run the reviews,
 * HTTPS calls with optional client certificates and repeated headers, and a
 * local HTTPS server with its own CA.
 */
import { call as httpsCall, TempDir as BaseTempDir, type CallOptions, type HttpResult } from "../../../../test/support/https-call.ts";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { makeKinds as apiextensionsKinds } from "../../../../shared/api/groups/apiextensions-v1.ts";
import { kinds as coreKinds } from "../../../../shared/api/groups/core-v1.ts";
import { getProfile, type PlatformProfile } from "../../../../shared/platform/index.ts";
import { createCA, createServingCert, type CertificateAuthority, type KeyPairPem } from "../../server/certs.ts";
import { deleteObject } from "../../registry/deletion.ts";
import type { Replica } from "../../server/replica.ts";
import { startTestApiserver } from "../../../../test/support/apiserver.ts";
import { buildAuthenticator, catalogObjectGetter, type AuthenticatorDeps, type BuiltAuthentication } from "../build.ts";
import type { ImpersonationAuthorize } from "../impersonation.ts";
import type { AuthenticationOptions } from "../options.ts";

export const profile: PlatformProfile = getProfile();

export { type HttpResult, type CallOptions } from "../../../../test/support/https-call.ts";

export function call(url: string, ca: string, o: CallOptions = {}): Promise<HttpResult> {
  return httpsCall(url, ca, o, "/whoami");
}

export class TempDir extends BaseTempDir {
  constructor() {
    super("authn-test-");
  }
}

export interface TestServer {
  replica: Replica;
  auth: BuiltAuthentication;
  url: string;
  ca: CertificateAuthority;
  call(o?: CallOptions): Promise<HttpResult>;
  /** Creates an object through the catalog (core v1). */
  create(resource: string, obj: Record<string, unknown>): Promise<Record<string, unknown>>;
  remove(resource: string, namespace: string | undefined, name: string): Promise<void>;
  close(): Promise<void>;
}

let sharedCa: Promise<{ ca: CertificateAuthority; serving: KeyPairPem }> | undefined;

/** One cluster CA and serving certificate for all suites of a file. */
export function clusterPki(): Promise<{ ca: CertificateAuthority; serving: KeyPairPem }> {
  sharedCa ??= (async () => {
    const ca = await createCA({ commonName: "test-cluster-ca" });
    return { ca, serving: await createServingCert(ca) };
  })();
  return sharedCa;
}

export interface StartOptions {
  deps?: Partial<AuthenticatorDeps>;
  /** Impersonation decisions (default: nobody may impersonate). */
  authorizeImpersonation?: ImpersonationAuthorize;
}

export async function startAuthServer(options: AuthenticationOptions, so: StartOptions = {}): Promise<TestServer> {
  const { ca, serving } = await clusterPki();
  const holder: { replica?: Replica } = {};
  const auth = await buildAuthenticator(options, { profile, getObject: catalogObjectGetter(() => holder.replica?.catalog), ...(so.deps ?? {}) });
  const authorize: ImpersonationAuthorize = so.authorizeImpersonation ?? (async () => false);
  const json = (v: unknown, status = 200) => new Response(JSON.stringify(v), { status, headers: { "content-type": "application/json" } });
  // The replica harness shared with the API tests (test/support/apiserver.ts), with this suite's chain.
  const api = await startTestApiserver({
    profile,
    // Every replica serves CustomResourceDefinitions (its CRD controller watches them).
    kinds: [...coreKinds, ...apiextensionsKinds(profile)],
    tls: { key: serving.keyPem, cert: serving.certPem },
    authenticate: async (req, incoming) => auth.impersonation(await auth.authenticate(req, incoming), req, incoming, authorize),
    extraRoutes: [
      ["/whoami", (_req, _url, _info, user) => json(user)],
      ["/livez", () => new Response("ok")],
      ["/tokenreview", async (req, _url, _info, user) => json(await auth.reviews.tokenReview(await req.json(), user), 201)],
      ["/selfsubjectreview", async (req, _url, _info, user) => json(await auth.reviews.selfSubjectReview(await req.json(), user), 201)],
    ],
  });
  holder.replica = api.replica;
  const r = api.replica;
  return {
    replica: r,
    auth,
    url: r.url,
    ca,
    call: (o) => call(r.url, ca.certPem, o),
    async create(resource, obj) {
      const entry = r.catalog.lookup("", "v1", resource);
      if (!entry) throw new Error(`no ${resource}`);
      return entry.registry.create(obj, { dryRun: false });
    },
    async remove(resource, namespace, name) {
      const entry = r.catalog.lookup("", "v1", resource);
      if (!entry) throw new Error(`no ${resource}`);
      await deleteObject(entry.registry, namespace, name, { gracePeriodSeconds: 0 }, { namespace, dryRun: false });
    },
    async close() {
      auth.close();
      await api.close();
    },
  };
}

/** A local HTTPS server on 127.0.0.1 with its own CA. */
export interface LocalHttps {
  url: string;
  ca: CertificateAuthority;
  server: Server;
  close(): Promise<void>;
}

export async function startLocalHttps(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void, opts: { requestCert?: boolean; clientCa?: string } = {}): Promise<LocalHttps> {
  const ca = await createCA({ commonName: "local-service-ca" });
  const serving = await createServingCert(ca);
  const server = createHttpsServer({ key: serving.keyPem, cert: serving.certPem, requestCert: opts.requestCert ?? false, rejectUnauthorized: false, ca: opts.clientCa }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    ca,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
