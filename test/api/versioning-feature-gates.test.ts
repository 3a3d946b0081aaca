/**
 * Feature gates, emulated version and metric lifecycle flags through HTTPS (issue 24).
 * One replica emulating release 1.33 with MutatingAdmissionPolicy (alpha at 1.33) on,
 * AuthorizeWithSelectors (beta at 1.33) off, apiserver_request_total disabled and the
 * verb label of apiserver_request_duration_seconds bounded to GET:
 * - /version keeps the binary release and reports the emulation;
 * - admissionregistration/v1beta1 (introduced in 1.34) is not served;
 * - /metrics, parsed as Prometheus text, has the gate metric with 1.33's stages, every
 *   family carries a stability class in its help and follows the naming rules, the
 *   disabled metric is absent and counted, other verbs are recorded as "unexpected";
 * - apiserver_storage_objects, STABLE and deprecated in 1.34 (within its window, so not
 *   hidden), prints the platform's deprecation help and counts what its replacement
 *   apiserver_resource_objects counts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllowMetricLabels } from "../../shared/observability/metric-label-allowlist.ts";
import { resolveEffectiveVersion } from "../../services/apiserver/server/effective-version.ts";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { parsePrometheusText, type MetricFamily } from "../support/prometheus-text.ts";

let api: TestApiserver;

beforeAll(async () => {
  const effectiveVersion = resolveEffectiveVersion(["kube=1.33"]);
  const gates = new FeatureGates({ emulationVersion: effectiveVersion.emulation });
  gates.set(["MutatingAdmissionPolicy=true", "AuthorizeWithSelectors=false"]);
  api = await startTestApiserver({
    profileId: "kubernetes",
    gates,
    effectiveVersion,
    metricsOptions: { disabledMetrics: ["apiserver_request_total"], allowMetricLabels: parseAllowMetricLabels(["apiserver_request_duration_seconds,verb='GET'"]) },
  });
}, 30_000);
afterAll(async () => {
  await api?.close();
});

async function scrape(): Promise<Map<string, MetricFamily>> {
  const res = await api.admin.get("/metrics");
  expect(res.status).toBe(200);
  return parsePrometheusText(res.text);
}

describe("--emulated-version=1.33", () => {
  it("/version reports the binary release and the emulation", async () => {
    const v = (await api.admin.get("/version")).json<Record<string, string>>();
    expect(v).toMatchObject({ major: "1", minor: "35", gitVersion: "v1.35.0", emulationMajor: "1", emulationMinor: "33", minCompatibilityMajor: "1", minCompatibilityMinor: "32" });
  });

  it("does not serve a group version introduced after 1.33, even with its gate on", async () => {
    const group = api.profile.group("admissionregistration");
    expect((await api.admin.get(`/apis/${group}/v1beta1/mutatingadmissionpolicies`)).status).toBe(404);
    const versions = (await api.admin.get(`/apis/${group}`)).json<{ versions: Array<{ version: string }> }>().versions.map((v) => v.version);
    expect(versions).toEqual(["v1"]);
  });

  it("does not serve a resource that came to an older group version after 1.33 (VolumeAttributesClass, storage/v1 in 1.34); serves the others of that group version", async () => {
    expect((await api.admin.get(`/apis/${api.profile.group("storage")}/v1/volumeattributesclasses`)).status).toBe(404);
    const storage = (await api.admin.get(`/apis/${api.profile.group("storage")}/v1`)).json<{ resources: Array<{ name: string }> }>().resources.map((r) => r.name);
    expect(storage).not.toContain("volumeattributesclasses");
    expect(storage).toContain("csistoragecapacities");
  });

  it("exports each gate with its stage at 1.33 and its state", async () => {
    const gates = (await scrape()).get("kubernetes_feature_enabled");
    expect(gates?.type).toBe("gauge");
    expect(gates?.help).toMatch(/^\[BETA\] /);
    const sample = (name: string) => gates?.samples.find((s) => s.labels.name === name);
    expect(sample("MutatingAdmissionPolicy")).toMatchObject({ labels: { stage: "ALPHA" }, value: 1 });
    expect(sample("AuthorizeWithSelectors")).toMatchObject({ labels: { stage: "BETA" }, value: 0 });
    expect(sample("ConsistentListFromCache")).toMatchObject({ labels: { stage: "BETA" }, value: 1 });
    expect(sample("RetryGenerateName")).toMatchObject({ labels: { stage: "" }, value: 1 });
    expect(sample("StructuredAuthenticationConfigurationEgressSelector")).toBeUndefined(); // not yet at 1.33
  });
});

describe("metric stability and lifecycle flags", () => {
  it("every family declares its class in the help and follows the naming rules", async () => {
    const families = await scrape();
    expect(families.size).toBeGreaterThan(5);
    for (const f of families.values()) {
      expect(f.help, f.name).toMatch(/^\[(ALPHA|BETA|STABLE|INTERNAL)\] (\(Deprecated since \d+\.\d+(\.\d+)?\) )?\S/);
      expect(f.name).toMatch(/^[a-z][a-z0-9_]*$/);
      // The platform's own names end in _total, except a few it keeps for compatibility (…_rejection_count).
      if (f.type === "counter") expect(f.name, f.name).toMatch(/_(total|count)$/);
      for (const s of f.samples) for (const label of Object.keys(s.labels)) expect(label, f.name).toMatch(/^[a-z][a-z0-9_]*$/);
    }
    const stable = ["apiserver_request_duration_seconds", "apiserver_current_inflight_requests", "apiserver_requested_deprecated_apis"];
    for (const name of stable) expect(families.get(name)?.help, name).toMatch(/^\[STABLE\] /);
  });

  it("a disabled metric is absent and counted; registered metrics are counted by class", async () => {
    const families = await scrape();
    expect(families.has("apiserver_request_total")).toBe(false);
    expect(families.get("disabled_metrics_total")?.samples[0]?.value).toBe(1);
    const registered = families.get("registered_metrics_total")?.samples ?? [];
    const stable = registered.find((s) => s.labels.stability_level === "STABLE" && s.labels.deprecated_version === "");
    expect(stable?.value).toBeGreaterThanOrEqual(4);
  });

  it("label values outside --allow-metric-labels are recorded as 'unexpected'", async () => {
    expect((await api.admin.get("/api/v1/namespaces/default")).status).toBe(200);
    expect((await api.admin.get("/api/v1/namespaces")).status).toBe(200);
    const counts = (await scrape()).get("apiserver_request_duration_seconds")?.samples.filter((s) => s.name === "apiserver_request_duration_seconds_count") ?? [];
    const verbs = new Set(counts.map((s) => s.labels.verb));
    expect(verbs.has("GET")).toBe(true);
    expect(verbs.has("unexpected")).toBe(true);
    expect([...verbs].every((v) => v === "GET" || v === "unexpected")).toBe(true);
  });
});

describe("a deprecated STABLE metric: apiserver_storage_objects (deprecated in 1.34.0)", () => {
  it("prints the deprecation in its help, is counted as deprecated, and counts stored objects as apiserver_resource_objects does", async () => {
    const flowcontrol = api.profile.group("flowcontrol");
    for (const name of ["counted-a", "counted-b"]) {
      const res = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
      expect(res.status, res.text).toBe(201);
    }
    const listed = async (path: string) => (await api.admin.get(path)).json<{ items: unknown[] }>().items.length;
    const configmaps = await listed("/api/v1/configmaps");
    const flowschemas = await listed(`/apis/${flowcontrol}/v1/flowschemas`);
    expect(configmaps).toBeGreaterThanOrEqual(2);
    expect(flowschemas).toBeGreaterThan(0);

    const families = await scrape();
    const deprecated = families.get("apiserver_storage_objects");
    expect(deprecated?.type).toBe("gauge");
    expect(deprecated?.help).toBe(
      "[STABLE] (Deprecated since 1.34.0) [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
    );
    const replacement = families.get("apiserver_resource_objects");
    expect(replacement?.help).toBe("[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.");
    const old = (resource: string) => deprecated?.samples.find((s) => s.labels.resource === resource)?.value;
    const now = (group: string, resource: string) => replacement?.samples.find((s) => s.labels.group === group && s.labels.resource === resource)?.value;
    expect(old("configmaps")).toBe(configmaps);
    expect(now("", "configmaps")).toBe(configmaps);
    expect(old(`flowschemas.${flowcontrol}`)).toBe(flowschemas);
    expect(now(flowcontrol, "flowschemas")).toBe(flowschemas);
    expect(old(`tokenreviews.${api.profile.group("authentication")}`)).toBeUndefined(); // a review stores nothing
    // Events are one stored resource served in two groups: counted once.
    expect(deprecated?.samples.filter((s) => s.labels.resource.startsWith("events")).length).toBe(1);

    const registered = families.get("registered_metrics_total")?.samples ?? [];
    expect(registered.find((s) => s.labels.stability_level === "STABLE" && s.labels.deprecated_version === "1.34.0")?.value).toBe(1);
    expect(families.get("hidden_metrics_total")?.samples[0]?.value).toBe(0);
  });
});
