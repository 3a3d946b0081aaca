/**
 * Deprecated built-in APIs (issue 24) through HTTPS: every request to a deprecated
 * group version's resource gets the platform's `Warning` text, sets
 * `apiserver_requested_deprecated_apis{…}` to 1 and annotates its audit event with
 * `<domain>/deprecated: "true"`; a request to a current API gets none of it; and
 * kubectl 1.34 prints the warning.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deprecationWarningText, type ApiLifecycle } from "../../shared/api/groups/deprecations.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ensurePki, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import type { AuditEvent } from "../../services/apiserver/server/filters/with-audit.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient } from "../support/clients.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";

const K8S = getProfile("kubernetes");
const ENDPOINTS_WARNING = `v1 Endpoints is deprecated in v1.33+; use ${K8S.group("discovery")}/v1 EndpointSlice`;
/** The audit annotation the platform puts on a request to a deprecated API. */
const DEPRECATED_ANNOTATION = { [K8S.annotations.deprecatedAudit]: "true" };

let api: TestApiserver;
const events: AuditEvent[] = [];

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes", audit: (e) => events.push({ ...e, annotations: e.annotations && { ...e.annotations } }) });
}, 30_000);
afterAll(async () => {
  await api?.close();
});

function metricLine(text: string, labels: string): string | undefined {
  return text.split("\n").find((l) => l.startsWith(`apiserver_requested_deprecated_apis{${labels}}`));
}

describe("deprecated API signals", () => {
  it("warns with the platform's wording on create, get, list and delete of core/v1 Endpoints", async () => {
    const body = { apiVersion: "v1", kind: "Endpoints", metadata: { name: "web" }, subsets: [] };
    const created = await api.admin.post("/api/v1/namespaces/default/endpoints", body);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.warning).toBe(`299 - "${ENDPOINTS_WARNING}"`);
    for (const path of ["/api/v1/namespaces/default/endpoints/web", "/api/v1/namespaces/default/endpoints", "/api/v1/endpoints"]) {
      const res = await api.admin.get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.warning, path).toBe(`299 - "${ENDPOINTS_WARNING}"`);
    }
    const deleted = await api.admin.request("DELETE", "/api/v1/namespaces/default/endpoints/web");
    expect(deleted.status).toBe(200);
    expect(deleted.headers.warning).toBe(`299 - "${ENDPOINTS_WARNING}"`);
  });

  it("does not warn for a current API", async () => {
    const res = await api.admin.get(`/apis/${K8S.group("discovery")}/v1/namespaces/default/endpointslices`);
    expect(res.status).toBe(200);
    expect(res.headers.warning).toBeUndefined();
  });

  it("sets apiserver_requested_deprecated_apis to 1 for the requested resource only", async () => {
    await api.admin.get("/api/v1/namespaces/default/endpoints");
    const metrics = await api.admin.get("/metrics");
    expect(metrics.status).toBe(200);
    expect(metricLine(metrics.text, 'group="",version="v1",resource="endpoints",subresource="",removed_release=""')).toMatch(/ 1$/);
    expect(metrics.text).not.toMatch(/apiserver_requested_deprecated_apis\{[^}]*resource="endpointslices"/);
    expect(metrics.text).toMatch(/# TYPE apiserver_requested_deprecated_apis gauge/);
  });

  it("annotates the audit event of a deprecated request, not of others", async () => {
    events.length = 0;
    await api.admin.get("/api/v1/namespaces/default/endpoints", { "audit-id": "deprecated-call" });
    await api.admin.get("/api/v1/namespaces/default/configmaps", { "audit-id": "current-call" });
    const done = (id: string) => events.find((e) => e.auditID === id && e.stage === "ResponseComplete");
    expect(done("deprecated-call")?.annotations).toEqual(DEPRECATED_ANNOTATION);
    expect(done("current-call")?.annotations).toBeUndefined();
  });

  it("counts and annotates a deprecated custom resource version, with the CRD's own warning", async () => {
    const crd = cronTabCrd(api.profile, { plural: "gadgets", kind: "Gadget", scope: "Cluster" }) as { spec: { versions: Array<Record<string, unknown>> } };
    const v1 = crd.spec.versions[0];
    crd.spec.versions = [
      { ...structuredClone(v1), name: "v1beta1", storage: false, deprecated: true, deprecationWarning: "gadgets v1beta1 is going away" },
      { ...structuredClone(v1), name: "v1", storage: true },
    ];
    const made = await api.admin.post(crdPath(api.profile), crd);
    expect(made.status, made.text).toBe(201);
    await waitServed(api.admin, `/apis/${CRD_GROUP}/v1beta1/gadgets`, 10_000);
    events.length = 0;
    const res = await api.admin.get(`/apis/${CRD_GROUP}/v1beta1/gadgets`, { "audit-id": "crd-deprecated" });
    expect(res.status).toBe(200);
    expect(res.headers.warning).toBe('299 - "gadgets v1beta1 is going away"');
    expect(events.find((e) => e.auditID === "crd-deprecated" && e.stage === "ResponseComplete")?.annotations).toEqual(DEPRECATED_ANNOTATION);
    const current = await api.admin.get(`/apis/${CRD_GROUP}/v1/gadgets`);
    expect(current.headers.warning).toBeUndefined();
    const metrics = (await api.admin.get("/metrics")).text;
    expect(metricLine(metrics, `group="${CRD_GROUP}",version="v1beta1",resource="gadgets",subresource="",removed_release=""`)).toMatch(/ 1$/);
    expect(metricLine(metrics, `group="${CRD_GROUP}",version="v1",resource="gadgets",subresource="",removed_release=""`)).toBeUndefined();
  });

  it("words a planned removal and a missing replacement as the platform does", () => {
    const p = getProfile("kubernetes");
    const cronJob: ApiLifecycle = { group: "batch", version: "v1beta1", kind: "CronJob", deprecatedIn: "1.21", removedIn: "1.25", replacement: { group: "batch", version: "v1", kind: "CronJob" } };
    expect(deprecationWarningText(p, cronJob)).toBe("batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob");
    const psp: ApiLifecycle = { group: "policy", version: "v1beta1", kind: "PodSecurityPolicy", deprecatedIn: "1.21", removedIn: "1.25" };
    expect(deprecationWarningText(p, psp)).toBe("policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+");
    expect(deprecationWarningText(p, { group: "core", version: "v1", kind: "ComponentStatus", deprecatedIn: "1.19" })).toBe("v1 ComponentStatus is deprecated in v1.19+");
    expect(deprecationWarningText(getProfile("plat"), { group: "core", version: "v1", kind: "Endpoints", deprecatedIn: "1.33", replacement: { group: "discovery", version: "v1", kind: "EndpointSlice" } })).toBe(
      `v1 Endpoints is deprecated in v1.33+; use ${getProfile("plat").group("discovery")}/v1 EndpointSlice`,
    );
  });
});

describe("kubectl 1.34", () => {
  it("prints the deprecation warning of core/v1 Endpoints", async () => {
    const home = await mkdtemp(join(tmpdir(), "versioning-kubectl-"));
    try {
      const pki = await ensurePki(api.dir, { profile: api.profile });
      await writeAdminKubeconfig(join(home, "config"), { server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
      const out = await runClient(layerClients().kubectl, ["get", "endpoints", "-n", "default"], { env: { HOME: home, KUBECONFIG: join(home, "config") } });
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).toContain(`Warning: ${ENDPOINTS_WARNING}`);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
