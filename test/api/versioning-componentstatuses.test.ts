/**
 * componentstatuses (issue 24): the deprecated core/v1 ComponentStatus is served read-only
 * with the platform's deprecation warning; each request probes the components: here the
 * scheduler's /healthz is a test HTTPS server answering "ok", the controller manager's is a
 * closed port (Unhealthy, "connection refused"), and etcd-0 is the replica's store.
 * kubectl 1.34 `get cs` prints the warning and the table.
 */
import { createServer, type Server } from "node:https";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createServingCert, ensurePki, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient } from "../support/clients.ts";
import { freePort } from "../support/ports.ts";

let api: TestApiserver;
let scheduler: Server;
let closedPort: number;

beforeAll(async () => {
  const ca = await createCA({ commonName: "componentstatus-test-ca" });
  const serving = await createServingCert(ca);
  scheduler = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    res.writeHead(req.url === "/healthz" ? 200 : 404).end(req.url === "/healthz" ? "ok" : "");
  });
  await new Promise<void>((r) => scheduler.listen(0, "127.0.0.1", () => r()));
  const port = (scheduler.address() as { port: number }).port;
  closedPort = await freePort();
  api = await startTestApiserver({
    profileId: "kubernetes",
    componentProbes: { scheduler: `https://127.0.0.1:${port}/healthz`, "controller-manager": `https://127.0.0.1:${closedPort}/healthz` },
  });
}, 30_000);
afterAll(async () => {
  await api?.close();
  await new Promise<void>((r) => (scheduler ? scheduler.close(() => r()) : r()));
});

interface Condition {
  type: string;
  status: string;
  message?: string;
  error?: string;
}
interface ComponentStatus {
  kind: string;
  apiVersion: string;
  metadata: { name: string };
  conditions: Condition[];
}

describe("componentstatuses", () => {
  it("lists scheduler, controller-manager and etcd-0 with a Healthy condition each, and warns that the API is deprecated", async () => {
    const res = await api.admin.get("/api/v1/componentstatuses");
    expect(res.status).toBe(200);
    expect(res.headers.warning).toBe('299 - "v1 ComponentStatus is deprecated in v1.19+"');
    const list = res.json<{ kind: string; items: ComponentStatus[] }>();
    expect(list.kind).toBe("ComponentStatusList");
    expect(list.items.map((i) => i.metadata.name)).toEqual(["scheduler", "controller-manager", "etcd-0"]);
    const byName = Object.fromEntries(list.items.map((i) => [i.metadata.name, i.conditions]));
    expect(byName.scheduler).toEqual([{ type: "Healthy", status: "True", message: "ok" }]);
    expect(byName["controller-manager"]).toEqual([
      { type: "Healthy", status: "False", error: `Get "https://127.0.0.1:${closedPort}/healthz": dial tcp 127.0.0.1:${closedPort}: connect: connection refused` },
    ]);
    expect(byName["etcd-0"]).toEqual([{ type: "Healthy", status: "True", message: '{"health":"true","reason":""}' }]);
  });

  it("gets one by name, 404 for others, and refuses writes", async () => {
    const etcd = await api.admin.get("/api/v1/componentstatuses/etcd-0");
    expect(etcd.status).toBe(200);
    expect(etcd.json<ComponentStatus>()).toMatchObject({ kind: "ComponentStatus", apiVersion: "v1", metadata: { name: "etcd-0" } });
    expect((await api.admin.get("/api/v1/componentstatuses/nope")).status).toBe(404);
    expect((await api.admin.post("/api/v1/componentstatuses", { apiVersion: "v1", kind: "ComponentStatus", metadata: { name: "x" } })).status).toBe(405);
    const discovery = (await api.admin.get("/api/v1")).json<{ resources: Array<{ name: string; verbs: string[]; shortNames?: string[]; namespaced: boolean }> }>();
    expect(discovery.resources.find((r) => r.name === "componentstatuses")).toMatchObject({ verbs: ["get", "list"], shortNames: ["cs"], namespaced: false });
  });

  it("kubectl 1.34 get cs prints the deprecation warning and each component's health", async () => {
    const home = await mkdtemp(join(tmpdir(), "versioning-cs-"));
    try {
      const pki = await ensurePki(api.dir, { profile: api.profile });
      await writeAdminKubeconfig(join(home, "config"), { server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
      const out = await runClient(layerClients().kubectl, ["get", "cs"], { env: { HOME: home, KUBECONFIG: join(home, "config") } });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).toContain("Warning: v1 ComponentStatus is deprecated in v1.19+");
      const rows = out.stdout.trim().split("\n").map((l) => l.split(/\s+/).slice(0, 2).join(" "));
      expect(rows).toEqual(["NAME STATUS", "scheduler Healthy", "controller-manager Unhealthy", "etcd-0 Healthy"]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
