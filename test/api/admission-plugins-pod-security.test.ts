/**
 * PodSecurity over HTTPS: levels through namespace labels (enforce refuses with
 * the platform's message, warn answers Warning headers, workloads only warn),
 * label validation, warnings about existing pods on an enforce change, and
 * exemptions from the admission configuration file.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const profile = getProfile("kubernetes");
const prefix = profile.admission.podSecurityLabelPrefix;
let api: TestApiserver;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pod-security-"));
  const configFile = join(dir, "admission.yaml");
  await writeFile(
    configFile,
    JSON.stringify({
      apiVersion: `${profile.group("apiserverConfig")}/v1`,
      kind: "AdmissionConfiguration",
      plugins: [
        {
          name: "PodSecurity",
          configuration: {
            apiVersion: "v1",
            kind: "PodSecurityConfiguration",
            defaults: { enforce: "privileged", "enforce-version": "latest", audit: "privileged", warn: "privileged" },
            exemptions: { namespaces: ["free"], runtimeClasses: ["trusted"], usernames: [] },
          },
        },
      ],
    }),
  );
  api = await startTestApiserver({ profileId: "kubernetes", admission: { enable: [], disable: [], configFile } });
  const ns = (name: string, labels: Record<string, string>) => api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } });
  for (const [name, labels] of [
    ["strict", { [`${prefix}enforce`]: "restricted" }],
    ["base", { [`${prefix}enforce`]: "baseline", [`${prefix}warn`]: "restricted", [`${prefix}warn-version`]: "v1.35" }],
    ["free", { [`${prefix}enforce`]: "restricted" }],
    ["open", {}],
  ] as const) {
    const r = await ns(name, labels);
    expect(r.status, r.text).toBe(201);
  }
});
afterAll(async () => {
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

type Obj = Record<string, unknown>;
const pod = (name: string, spec: Obj = {}, container: Obj = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "app", image: "busybox", ...container }], ...spec },
});
const RESTRICTED_OK = {
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] }, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
};
function warnings(h: Obj): string[] {
  const raw = h.warning;
  const list = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/,(?=\s*299 )/) : [];
  return list.map((w: string) => JSON.parse(w.trim().replace(/^299 - /, "")) as string);
}

describe("PodSecurity admission", () => {
  it("refuses a pod violating the enforced level with the platform's message", async () => {
    const r = await api.admin.post("/api/v1/namespaces/strict/pods", pod("bad"));
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      message:
        'pods "bad" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    });
    const ok = await api.admin.post("/api/v1/namespaces/strict/pods", pod("good", {}, RESTRICTED_OK));
    expect(ok.status, ok.text).toBe(201);
  });

  it("enforces baseline and warns at restricted in the same namespace", async () => {
    const host = await api.admin.post("/api/v1/namespaces/base/pods", pod("host", { hostNetwork: true }, { securityContext: { privileged: true } }));
    expect(host.status).toBe(403);
    expect(host.json<{ message: string }>().message).toBe(
      'pods "host" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), privileged (container "app" must not set securityContext.privileged=true)',
    );
    const plain = await api.admin.post("/api/v1/namespaces/base/pods", pod("plain"));
    expect(plain.status, plain.text).toBe(201);
    const w = warnings(plain.headers as Obj);
    expect(w).toContainEqual(expect.stringMatching(/^would violate PodSecurity "restricted:v1\.35": allowPrivilegeEscalation != false/));
  });

  it("only warns for workload templates", async () => {
    const dep = await api.admin.post("/apis/apps/v1/namespaces/base/deployments", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { hostIPC: true, containers: [{ name: "app", image: "nginx" }] } } },
    });
    expect(dep.status, dep.text).toBe(201);
    expect(warnings(dep.headers as Obj)).toEqual([
      'would violate PodSecurity "restricted:v1.35": allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), host namespaces (hostIPC=true), runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    ]);
  });

  it("exempts namespaces and runtime classes from the configuration", async () => {
    const free = await api.admin.post("/api/v1/namespaces/free/pods", pod("anything", { hostPID: true }));
    expect(free.status, free.text).toBe(201);
    const rc = await api.admin.post(`/apis/${profile.group("node")}/v1/runtimeclasses`, { apiVersion: `${profile.group("node")}/v1`, kind: "RuntimeClass", metadata: { name: "trusted" }, handler: "runc" });
    expect(rc.status, rc.text).toBe(201);
    const trusted = await api.admin.post("/api/v1/namespaces/strict/pods", pod("trusted", { runtimeClassName: "trusted" }));
    expect(trusted.status, trusted.text).toBe(201);
  });

  it("rejects invalid labels and warns about existing pods when enforcement tightens", async () => {
    const bad = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "typo", labels: { [`${prefix}enforce`]: "strict" } } });
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({
      reason: "Invalid",
      message: `Namespace "typo" is invalid: metadata.labels[${prefix}enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`,
    });
    const p = await api.admin.post("/api/v1/namespaces/open/pods", pod("loose"));
    expect(p.status, p.text).toBe(201);
    const ns = await api.admin.get("/api/v1/namespaces/open");
    const body = ns.json<{ metadata: { labels: Record<string, string> } }>();
    body.metadata.labels[`${prefix}enforce`] = "restricted";
    const upd = await api.admin.put("/api/v1/namespaces/open", body);
    expect(upd.status, upd.text).toBe(200);
    expect(warnings(upd.headers as Obj)).toEqual([
      'existing pods in namespace "open" violate the new PodSecurity enforce level "restricted:latest"',
      "loose: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
    ]);
  });
});
