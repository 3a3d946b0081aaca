/**
 * Deprecation signals follow `--emulated-version` (issue 24): two replicas over one
 * store, one at the binary's release (1.35) and one emulating 1.32. core/v1 Endpoints,
 * deprecated in 1.33, warns, counts in `apiserver_requested_deprecated_apis` and
 * annotates the audit event on the first only; ComponentStatus, deprecated in 1.19,
 * warns on both. IPAddress and ServiceCIDR, GA in networking/v1 in 1.33, are served by
 * the first only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { resolveEffectiveVersion } from "../../services/apiserver/server/effective-version.ts";
import type { AuditEvent } from "../../services/apiserver/server/filters/with-audit.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { HttpsClient } from "../support/https-client.ts";

const K8S = getProfile("kubernetes");
const ENDPOINTS_WARNING = `299 - "v1 Endpoints is deprecated in v1.33+; use ${K8S.group("discovery")}/v1 EndpointSlice"`;
const COMPONENT_STATUS_WARNING = '299 - "v1 ComponentStatus is deprecated in v1.19+"';

let current: TestApiserver;
let emulating: { replica: { close(): Promise<void> }; admin: HttpsClient };
const events: AuditEvent[] = [];

beforeAll(async () => {
  current = await startTestApiserver({ profileId: "kubernetes" });
  emulating = await startSecondReplica(current, {
    effectiveVersion: resolveEffectiveVersion(["kube=1.32"]),
    audit: (e) => events.push({ ...e, annotations: e.annotations && { ...e.annotations } }),
  });
}, 60_000);
afterAll(async () => {
  emulating?.admin.close();
  await emulating?.replica.close();
  await current?.close();
});

function deprecatedMetric(text: string): string | undefined {
  return text.split("\n").find((l) => l.startsWith('apiserver_requested_deprecated_apis{group="",version="v1",resource="endpoints"'));
}

describe("deprecation warnings at an emulated release", () => {
  it("warns for Endpoints at 1.35 and not when emulating 1.32", async () => {
    const body = { apiVersion: "v1", kind: "Endpoints", metadata: { name: "web" }, subsets: [] };
    const created = await emulating.admin.post("/api/v1/namespaces/default/endpoints", body);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.warning).toBeUndefined();
    const old = await emulating.admin.get("/api/v1/namespaces/default/endpoints/web");
    expect(old.status).toBe(200);
    expect(old.headers.warning).toBeUndefined();
    const now = await current.admin.get("/api/v1/namespaces/default/endpoints/web");
    expect(now.status).toBe(200);
    expect(now.headers.warning).toBe(ENDPOINTS_WARNING);
  });

  it("neither counts nor annotates Endpoints when emulating 1.32", async () => {
    events.length = 0;
    await emulating.admin.get("/api/v1/namespaces/default/endpoints", { "audit-id": "emulated-endpoints" });
    const done = events.find((e) => e.auditID === "emulated-endpoints" && e.stage === "ResponseComplete");
    expect(done).toBeDefined();
    expect(done?.annotations?.[K8S.annotations.deprecatedAudit]).toBeUndefined();
    expect(deprecatedMetric((await emulating.admin.get("/metrics")).text)).toBeUndefined();
    await current.admin.get("/api/v1/namespaces/default/endpoints");
    expect(deprecatedMetric((await current.admin.get("/metrics")).text)).toMatch(/ 1$/);
  });

  it("warns for ComponentStatus, deprecated long before 1.32, on both", async () => {
    for (const admin of [current.admin, emulating.admin]) {
      const res = await admin.get("/api/v1/componentstatuses");
      expect(res.status, res.text).toBe(200);
      expect(res.headers.warning).toBe(COMPONENT_STATUS_WARNING);
    }
  });
});

describe("group versions at an emulated release", () => {
  it("serves IPAddress and ServiceCIDR v1 (GA in 1.33) at 1.35, not when emulating 1.32", async () => {
    const networking = K8S.group("networking");
    for (const resource of ["ipaddresses", "servicecidrs"]) {
      expect((await current.admin.get(`/apis/${networking}/v1/${resource}`)).status, resource).toBe(200);
      expect((await emulating.admin.get(`/apis/${networking}/v1/${resource}`)).status, resource).toBe(404);
    }
    const names = async (admin: HttpsClient) => (await admin.get(`/apis/${networking}/v1`)).json<{ resources: Array<{ name: string }> }>().resources.map((r) => r.name);
    expect(await names(current.admin)).toEqual(expect.arrayContaining(["ipaddresses", "servicecidrs", "ingresses"]));
    const old = await names(emulating.admin);
    expect(old).toContain("ingresses");
    expect(old.filter((n) => n.startsWith("ipaddresses") || n.startsWith("servicecidrs"))).toEqual([]);
  });
});
