/**
 * The admission chain through HTTPS against real replicas: phases and their
 * order, the object in the request's version, operations (never reads),
 * mutations persisted and nothing stored on rejection, the admission flags and
 * the AdmissionConfiguration file, NamespaceLifecycle and AlwaysDeny.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { AdmissionPlugin, Attributes, PluginContext } from "../../services/apiserver/admission/interfaces.ts";
import type { PluginRegistry } from "../../services/apiserver/admission/plugins.ts";
import { forbiddenWithReason } from "../../shared/api/status.ts";
import { jsonPatch, startWebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";

interface Call {
  phase: "admit" | "validate";
  operation: string;
  kind: string;
  version: string;
  subresource: string;
  name: string;
  object?: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
  user: string;
  dryRun: boolean;
}

const calls: Call[] = [];
const configs: Array<Record<string, unknown> | undefined> = [];

function record(phase: Call["phase"], a: Attributes): void {
  calls.push({
    phase,
    operation: a.operation,
    kind: a.kind.kind,
    version: a.kind.version,
    subresource: a.subresource,
    name: a.name,
    object: a.object && structuredClone(a.object),
    oldObject: a.oldObject && structuredClone(a.oldObject),
    user: a.userInfo.username,
    dryRun: a.dryRun,
  });
}

/** A test plugin: records both phases, labels objects in phase 1, rejects names starting with "reject-" in phase 2. */
function recorder(ctx: PluginContext): AdmissionPlugin {
  configs.push(ctx.config);
  return {
    name: "Recorder",
    handles: (op) => op !== "CONNECT",
    admit(a) {
      record("admit", a);
      const meta = a.object?.metadata as { labels?: Record<string, string> } | undefined;
      if (meta && a.kind.kind === "ConfigMap") meta.labels = { ...(meta.labels ?? {}), admitted: String(ctx.config?.label ?? "yes") };
    },
    validate(a) {
      record("validate", a);
      if (a.name.startsWith("reject-")) throw forbiddenWithReason(a.resource.resource, a.name, "rejected by the recorder", a.resource.group);
    },
  };
}

const register = (r: PluginRegistry) => r.register("Recorder", recorder);

let api: TestApiserver;

beforeAll(async () => {
  api = await startTestApiserver({ registerAdmissionPlugins: register, admission: { enable: ["Recorder"], disable: [] } });
  expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "chain" } })).status).toBe(201);
});

afterAll(async () => {
  await api?.close();
});

describe("the admission chain", () => {
  it("runs phase 1 then phase 2 on writes only, persists mutations, and stores nothing on rejection", async () => {
    calls.length = 0;
    const r = await api.admin.post("/api/v1/namespaces/chain/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c1" }, data: { a: "1" } });
    expect(r.status).toBe(201);
    expect(r.json<{ metadata: { labels: Record<string, string> } }>().metadata.labels.admitted).toBe("yes");
    expect(calls.map((c) => `${c.phase}:${c.operation}`)).toEqual(["admit:CREATE", "validate:CREATE"]);
    // Phase 2 sees phase 1's change.
    expect((calls[1].object?.metadata as { labels: Record<string, string> }).labels.admitted).toBe("yes");
    calls.length = 0;
    expect((await api.admin.get("/api/v1/namespaces/chain/configmaps/c1")).status).toBe(200);
    expect((await api.admin.get("/api/v1/namespaces/chain/configmaps")).status).toBe(200);
    expect(calls).toEqual([]);
    const rejected = await api.admin.post("/api/v1/namespaces/chain/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "reject-1" } });
    expect(rejected.status).toBe(403);
    expect(rejected.json<{ message: string }>().message).toBe('configmaps "reject-1" is forbidden: rejected by the recorder');
    expect((await api.admin.get("/api/v1/namespaces/chain/configmaps/reject-1")).status).toBe(404);
  });

  it("passes update and patch with the old object, delete with the stored object, and the dry-run flag", async () => {
    const cur = (await api.admin.get("/api/v1/namespaces/chain/configmaps/c1")).json<Record<string, unknown>>();
    calls.length = 0;
    expect((await api.admin.put("/api/v1/namespaces/chain/configmaps/c1?dryRun=All", { ...cur, data: { a: "2" } })).status).toBe(200);
    expect(calls[0]).toMatchObject({ phase: "admit", operation: "UPDATE", dryRun: true, object: { data: { a: "2" } }, oldObject: { data: { a: "1" } } });
    calls.length = 0;
    expect((await api.admin.patch("/api/v1/namespaces/chain/configmaps/c1", { data: { b: "3" } }, "application/merge-patch+json")).status).toBe(200);
    expect(calls.map((c) => `${c.phase}:${c.operation}`)).toEqual(["admit:UPDATE", "validate:UPDATE"]);
    calls.length = 0;
    expect((await api.admin.delete("/api/v1/namespaces/chain/configmaps/c1")).status).toBe(200);
    expect(calls.map((c) => `${c.phase}:${c.operation}`)).toEqual(["admit:DELETE", "validate:DELETE"]);
    expect(calls[0].object).toBeUndefined();
    expect(calls[0].oldObject).toMatchObject({ metadata: { name: "c1" }, data: { b: "3" } });
  });

  it("a webhook asking for reinvocation makes the whole mutating phase run again", async () => {
    const wh = await startWebhookServer();
    try {
      const label = (rv: { request: { object: Record<string, unknown> | null } }) => (rv.request.object?.metadata as { labels?: Record<string, string> }).labels ?? {};
      wh.on("/first", (rv) => (label(rv).first ? { response: { allowed: true } } : { response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/labels/first", value: "1" }]) } }));
      wh.on("/second", (rv) => (label(rv).second ? { response: { allowed: true } } : { response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/labels/second", value: "2" }]) } }));
      const ar = api.profile.group("admissionregistration");
      const hook = (id: string, extra: Record<string, unknown> = {}) => ({
        name: `${id}.example.com`,
        clientConfig: { url: `${wh.url}/${id}`, caBundle: wh.caBundle },
        rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
        objectSelector: { matchLabels: { reinvoke: "yes" } },
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        ...extra,
      });
      const r = await api.admin.post(`/apis/${ar}/v1/mutatingwebhookconfigurations`, {
        apiVersion: `${ar}/v1`,
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "reinvoke" },
        webhooks: [hook("first", { reinvocationPolicy: "IfNeeded" }), hook("second")],
      });
      expect(r.status, r.text).toBe(201);
      await new Promise((res) => setTimeout(res, 300));
      calls.length = 0;
      const c = await api.admin.post("/api/v1/namespaces/chain/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ri-1", labels: { reinvoke: "yes" } } });
      expect(c.status, c.text).toBe(201);
      expect(c.json<{ metadata: { labels: Record<string, string> } }>().metadata.labels).toMatchObject({ first: "1", second: "2", admitted: "yes" });
      // Recorder (an in-tree plugin) ran in both passes; the first webhook was called twice, the second once.
      expect(calls.filter((x) => x.phase === "admit" && x.name === "ri-1")).toHaveLength(2);
      expect(wh.reviews.filter((x) => x.path === "/first")).toHaveLength(2);
      expect(wh.reviews.filter((x) => x.path === "/second")).toHaveLength(1);
      expect((await api.admin.delete(`/apis/${ar}/v1/mutatingwebhookconfigurations/reinvoke`)).status).toBe(200);
    } finally {
      await wh.close();
    }
  });

  it("sees the object in the request's version and kind, not the storage form", async () => {
    const autoscaling = api.profile.group("autoscaling");
    const hpa = {
      apiVersion: `${autoscaling}/v1`,
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h1" },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
    };
    calls.length = 0;
    const r = await api.admin.post(`/apis/${autoscaling}/v1/namespaces/chain/horizontalpodautoscalers`, hpa);
    expect(r.status, r.text).toBe(201);
    expect(calls[0]).toMatchObject({ version: "v1", kind: "HorizontalPodAutoscaler" });
    expect((calls[0].object?.spec as Record<string, unknown>).targetCPUUtilizationPercentage).toBe(70);
    expect((calls[0].object?.spec as Record<string, unknown>).metrics).toBeUndefined();
  });

  it("NamespaceLifecycle: missing namespaces are 404, the default namespace may not be deleted", async () => {
    const missing = await api.admin.post("/api/v1/namespaces/nowhere/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
    expect(missing.status).toBe(404);
    expect(missing.json<{ message: string }>().message).toBe('namespaces "nowhere" not found');
    const del = await api.admin.delete("/api/v1/namespaces/default");
    expect(del.status).toBe(403);
    expect(del.json<{ message: string }>().message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });
});

describe("admission flags and configuration", () => {
  it("an unknown plugin name fails start-up with the platform's message", async () => {
    await expect(startTestApiserver({ admission: { enable: ["NoSuchPlugin"], disable: [] } })).rejects.toThrow('enable-admission-plugins plugin "NoSuchPlugin" is unknown');
    await expect(startTestApiserver({ admission: { enable: [], disable: ["Nope"] } })).rejects.toThrow('disable-admission-plugins plugin "Nope" is unknown');
  });

  it("--disable-admission-plugins removes a default plugin; AlwaysDeny rejects every write but no read", async () => {
    const s = await startTestApiserver({ admission: { enable: ["AlwaysDeny"], disable: ["NamespaceLifecycle"] } });
    try {
      const w = await s.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
      expect(w.status).toBe(403);
      expect(w.json<{ message: string }>().message).toBe('configmaps "x" is forbidden: admission control is denying all modifications');
      expect((await s.admin.get("/api/v1/namespaces/default/configmaps")).status).toBe(200);
    } finally {
      await s.close();
    }
    const open = await startTestApiserver({ admission: { enable: [], disable: ["NamespaceLifecycle"] } });
    try {
      // Without NamespaceLifecycle nothing checks the namespace (as on the platform).
      expect((await open.admin.post("/api/v1/namespaces/nowhere/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } })).status).toBe(201);
    } finally {
      await open.close();
    }
  });

  it("--admission-control-config-file gives each plugin its configuration, inline or from a path", async () => {
    const group = api.profile.group("apiserverConfig");
    const file = join(api.dir, "admission.yaml");
    await writeFile(join(api.dir, "recorder.yaml"), "label: from-path\n");
    await writeFile(file, `apiVersion: ${group}/v1\nkind: AdmissionConfiguration\nplugins:\n- name: Recorder\n  path: recorder.yaml\n`);
    configs.length = 0;
    const s = await startTestApiserver({ registerAdmissionPlugins: register, admission: { enable: ["Recorder"], disable: [], configFile: file } });
    try {
      expect(configs).toEqual([{ label: "from-path" }]);
      const r = await s.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg" } });
      expect(r.json<{ metadata: { labels: Record<string, string> } }>().metadata.labels.admitted).toBe("from-path");
    } finally {
      await s.close();
    }
    await writeFile(file, `apiVersion: ${group}/v1\nkind: AdmissionConfiguration\nplugins:\n- name: Recorder\n  configuration:\n    label: inline\n`);
    configs.length = 0;
    const t = await startTestApiserver({ registerAdmissionPlugins: register, admission: { enable: ["Recorder"], disable: [], configFile: file } });
    await t.close();
    expect(configs).toEqual([{ label: "inline" }]);
    await writeFile(file, `apiVersion: wrong/v1\nkind: AdmissionConfiguration\n`);
    await expect(startTestApiserver({ admission: { enable: [], disable: [], configFile: file } })).rejects.toThrow("unsupported apiVersion");
  });
});
