/**
 * The aggregation layer's flags in the real apiserver process: --proxy-client-cert-file
 * and --proxy-client-key-file give the certificate presented to the aggregated server,
 * and the first name of each --requestheader-*-headers list names the front-proxy
 * headers the proxy sends (a lone certificate flag is refused: options table test).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { createCA, createClientCert, ensurePki } from "../../services/apiserver/server/certs.ts";
import { AGGREGATED_GROUP as G, AGGREGATED_VERSION as V, startAggregatedServer, type AggregatedServer } from "../support/aggregated-server.ts";
import { HttpsClient } from "../support/https-client.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const profile = getProfile("kubernetes");
let dir: string;
let server: ServerProcess;
let backend: AggregatedServer;
let admin: HttpsClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "aggregation-process-"));
  const proxyCa = await createCA({ commonName: "front-proxy-ca" });
  const client = await createClientCert(proxyCa, { user: "front-proxy-client" });
  await writeFile(join(dir, "proxy.crt"), client.certPem);
  await writeFile(join(dir, "proxy.key"), client.keyPem);
  await writeFile(join(dir, "front-proxy-ca.crt"), proxyCa.certPem);
  backend = await startAggregatedServer(["metrics-api.default.svc"], proxyCa.certPem);
  server = await startServerProcess([
    `--proxy-client-cert-file=${join(dir, "proxy.crt")}`,
    `--proxy-client-key-file=${join(dir, "proxy.key")}`,
    `--requestheader-client-ca-file=${join(dir, "front-proxy-ca.crt")}`,
    "--requestheader-username-headers=X-Forwarded-User",
    "--requestheader-group-headers=X-Forwarded-Groups",
    "--requestheader-extra-headers-prefix=X-Forwarded-Extra-",
    "--enable-aggregator-routing=true",
  ]);
  const pki = await ensurePki(server.dir, { profile });
  admin = new HttpsClient(server.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
}, 120_000);
afterAll(async () => {
  admin?.close();
  await server?.close();
  await backend?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("aggregator flags of the apiserver process", () => {
  it("proxies with the configured front-proxy header names and the proxy client certificate", async () => {
    expect((await admin.post("/api/v1/namespaces/default/services", { apiVersion: "v1", kind: "Service", metadata: { name: "metrics-api" }, spec: { ports: [{ name: "https", port: 443 }] } })).status).toBe(201);
    const disc = profile.group("discovery");
    const slice = await admin.post(`/apis/${disc}/v1/namespaces/default/endpointslices`, {
      apiVersion: `${disc}/v1`,
      kind: "EndpointSlice",
      metadata: { name: "metrics-api-1", labels: { [profile.labels.serviceName]: "metrics-api" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["127.0.0.1"], conditions: { ready: true } }],
      ports: [{ name: "https", port: backend.port, protocol: "TCP" }],
    });
    expect(slice.status, slice.text).toBe(201);
    const apiService = {
      apiVersion: profile.apiVersion("apiregistration", "v1"),
      kind: "APIService",
      metadata: { name: `${V}.${G}` },
      spec: { group: G, version: V, groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: "default", name: "metrics-api", port: 443 }, caBundle: backend.caBundle },
    };
    expect((await admin.post(`/apis/${profile.group("apiregistration")}/v1/apiservices`, apiService)).status).toBe(201);
    let res = await admin.get(`/apis/${G}/${V}/namespaces/default/podmetrics/p1`);
    // The first availability check runs at once; until it has passed the proxy answers 503.
    for (let i = 0; res.status === 503 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await admin.get(`/apis/${G}/${V}/namespaces/default/podmetrics/p1`);
    }
    expect(res.status, res.text).toBe(200);
    const seen = backend.requests.filter((r) => r.path.endsWith("/podmetrics/p1")).at(-1);
    expect(seen?.clientCN).toBe("front-proxy-client");
    expect(seen?.headers["x-forwarded-user"]).toBeTruthy();
    expect(seen?.headers["x-forwarded-groups"]).toBeTruthy();
    expect(seen?.headers["x-remote-user"]).toBeUndefined();
  });
});
