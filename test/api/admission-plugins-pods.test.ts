/**
 * The built-in pod and node admission plugins over HTTPS against a replica with
 * the built-in plugins registered (default-on set): ServiceAccount,
 * DefaultTolerationSeconds, Priority, RuntimeClass, TaintNodesByCondition.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
  for (const ns of ["sa", "prio", "rc"]) {
    const r = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    expect(r.status, r.text).toBe(201);
  }
});
afterAll(async () => {
  await api?.close();
});

type Obj = Record<string, unknown>;
interface PodOut {
  metadata: { name: string };
  spec: {
    serviceAccountName?: string;
    volumes?: Array<{ name: string; projected?: Obj }>;
    containers: Array<{ name: string; volumeMounts?: Obj[] }>;
    initContainers?: Array<{ name: string; volumeMounts?: Obj[] }>;
    tolerations?: Obj[];
    priority?: number;
    priorityClassName?: string;
    preemptionPolicy?: string;
    overhead?: Record<string, string>;
    nodeSelector?: Record<string, string>;
  };
}

const pod = (name: string, spec: Obj = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "app", image: "busybox" }], ...spec },
});

async function createPod(ns: string, body: Obj) {
  return api.admin.post(`/api/v1/namespaces/${ns}/pods`, body);
}

describe("ServiceAccount admission", () => {
  it("defaults the service account and mounts the projected API access volume in every container", async () => {
    const r = await createPod("sa", pod("p1", { initContainers: [{ name: "init", image: "busybox" }] }));
    expect(r.status, r.text).toBe(201);
    const p = r.json<PodOut>();
    expect(p.spec.serviceAccountName).toBe("default");
    const prefix = api.profile.admission.apiAccessVolumePrefix;
    const vols = (p.spec.volumes ?? []).filter((v) => v.name.startsWith(prefix));
    expect(vols).toHaveLength(1);
    expect(vols[0].name).toMatch(new RegExp(`^${prefix}[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    expect(vols[0].projected).toEqual({
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: api.profile.admission.rootCAConfigMap, items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    });
    const mount = { name: vols[0].name, readOnly: true, mountPath: api.profile.admission.tokenMountPath };
    expect(p.spec.containers[0].volumeMounts).toEqual([mount]);
    expect(p.spec.initContainers?.[0].volumeMounts).toEqual([mount]);
    const sa = await api.admin.get("/api/v1/namespaces/sa/serviceaccounts/default");
    expect(sa.status).toBe(200);
  });

  it("refuses a pod whose service account does not exist with the platform's message", async () => {
    const r = await createPod("sa", pod("p2", { serviceAccountName: "missing" }));
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      message: 'pods "p2" is forbidden: error looking up service account sa/missing: serviceaccount "missing" not found',
      details: { name: "p2", kind: "pods" },
    });
    const gone = await api.admin.get("/api/v1/namespaces/sa/pods/p2");
    expect(gone.status).toBe(404);
  });

  it("respects automountServiceAccountToken on the account, the pod's choice winning", async () => {
    const sa = await api.admin.post("/api/v1/namespaces/sa/serviceaccounts", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "quiet" },
      automountServiceAccountToken: false,
      imagePullSecrets: [{ name: "regcred" }],
    });
    expect(sa.status, sa.text).toBe(201);
    const off = await createPod("sa", pod("p3", { serviceAccountName: "quiet" }));
    expect(off.status, off.text).toBe(201);
    const offPod = off.json<PodOut & { spec: { imagePullSecrets?: Obj[] } }>();
    expect(offPod.spec.volumes ?? []).toEqual([]);
    expect(offPod.spec.containers[0].volumeMounts).toBeUndefined();
    expect(offPod.spec.imagePullSecrets).toEqual([{ name: "regcred" }]);
    const on = await createPod("sa", pod("p4", { serviceAccountName: "quiet", automountServiceAccountToken: true }));
    expect(on.status, on.text).toBe(201);
    expect(on.json<PodOut>().spec.containers[0].volumeMounts).toHaveLength(1);
    const podOff = await createPod("sa", pod("p5", { automountServiceAccountToken: false }));
    expect(podOff.json<PodOut>().spec.volumes ?? []).toEqual([]);
  });
});

describe("DefaultTolerationSeconds admission", () => {
  it("adds the not-ready and unreachable NoExecute tolerations with 300 seconds", async () => {
    const r = await createPod("sa", pod("t1", { tolerations: [{ key: api.profile.taints.unreachable, operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 }] }));
    expect(r.status, r.text).toBe(201);
    expect(r.json<PodOut>().spec.tolerations).toEqual([
      { key: api.profile.taints.unreachable, operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 },
      { key: api.profile.taints.notReady, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
  });
});

describe("Priority admission", () => {
  const classes = () => `/apis/${api.profile.group("scheduling")}/v1/priorityclasses`;

  it("resolves priority 0 without classes, the class's value, the system classes, and refuses unknown classes", async () => {
    const none = await createPod("prio", pod("n1"));
    expect(none.status, none.text).toBe(201);
    expect(none.json<PodOut>().spec).toMatchObject({ priority: 0, preemptionPolicy: "PreemptLowerPriority" });

    const hi = await api.admin.post(classes(), { apiVersion: `${api.profile.group("scheduling")}/v1`, kind: "PriorityClass", metadata: { name: "high" }, value: 1000, preemptionPolicy: "Never" });
    expect(hi.status, hi.text).toBe(201);
    const withClass = await createPod("prio", pod("n2", { priorityClassName: "high" }));
    expect(withClass.status, withClass.text).toBe(201);
    expect(withClass.json<PodOut>().spec).toMatchObject({ priority: 1000, preemptionPolicy: "Never", priorityClassName: "high" });

    const critical = await createPod("prio", pod("n3", { priorityClassName: "system-node-critical" }));
    expect(critical.status, critical.text).toBe(201);
    expect(critical.json<PodOut>().spec.priority).toBe(2000001000);

    const unknown = await createPod("prio", pod("n4", { priorityClassName: "nope" }));
    expect(unknown.status).toBe(403);
    expect(unknown.json<{ message: string }>().message).toBe('pods "n4" is forbidden: no PriorityClass with name nope was found');

    const wrong = await createPod("prio", pod("n5", { priorityClassName: "high", priority: 5 }));
    expect(wrong.status).toBe(403);
    expect(wrong.json<{ message: string }>().message).toBe(
      'pods "n5" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    );
  });

  it("uses the global default class and refuses a second default", async () => {
    const mk = (name: string, value: number) =>
      api.admin.post(classes(), { apiVersion: `${api.profile.group("scheduling")}/v1`, kind: "PriorityClass", metadata: { name }, value, globalDefault: true });
    const first = await mk("everyday", 50);
    expect(first.status, first.text).toBe(201);
    const second = await mk("another", 60);
    expect(second.status).toBe(403);
    expect(second.json()).toMatchObject({
      reason: "Forbidden",
      message: `priorityclasses.${api.profile.group("scheduling")} "another" is forbidden: PriorityClass everyday is already marked as default. Only one default can exist`,
    });
    const p = await createPod("prio", pod("d1"));
    expect(p.status, p.text).toBe(201);
    expect(p.json<PodOut>().spec).toMatchObject({ priority: 50, priorityClassName: "everyday", preemptionPolicy: "PreemptLowerPriority" });
    const del = await api.admin.delete(`${classes()}/everyday`);
    expect(del.status).toBe(200);
  });
});

describe("RuntimeClass admission", () => {
  it("sets overhead and scheduling from the class and refuses conflicts and unknown classes", async () => {
    const group = api.profile.group("node");
    const rc = await api.admin.post(`/apis/${group}/v1/runtimeclasses`, {
      apiVersion: `${group}/v1`,
      kind: "RuntimeClass",
      metadata: { name: "sandboxed" },
      handler: "runsc",
      overhead: { podFixed: { cpu: "250m", memory: "64Mi" } },
      scheduling: { nodeSelector: { sandbox: "yes" }, tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }] },
    });
    expect(rc.status, rc.text).toBe(201);
    const ok = await createPod("rc", pod("r1", { runtimeClassName: "sandboxed", nodeSelector: { disk: "ssd" } }));
    expect(ok.status, ok.text).toBe(201);
    const spec = ok.json<PodOut>().spec;
    expect(spec.overhead).toEqual({ cpu: "250m", memory: "64Mi" });
    expect(spec.nodeSelector).toEqual({ disk: "ssd", sandbox: "yes" });
    expect(spec.tolerations).toContainEqual({ key: "sandbox", operator: "Exists", effect: "NoSchedule" });

    const conflict = await createPod("rc", pod("r2", { runtimeClassName: "sandboxed", nodeSelector: { sandbox: "no" } }));
    expect(conflict.status).toBe(403);
    expect(conflict.json<{ message: string }>().message).toBe(
      'pods "r2" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = yes; pod.spec.nodeSelector[sandbox] = no',
    );
    const overhead = await createPod("rc", pod("r3", { runtimeClassName: "sandboxed", overhead: { cpu: "1" } }));
    expect(overhead.status).toBe(403);
    expect(overhead.json<{ message: string }>().message).toBe("pods \"r3\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    const missing = await createPod("rc", pod("r4", { runtimeClassName: "ghost" }));
    expect(missing.status).toBe(403);
    expect(missing.json<{ message: string }>().message).toBe('pods "r4" is forbidden: pod rejected: RuntimeClass "ghost" not found');
    const bare = await createPod("rc", pod("r5", { overhead: { cpu: "1" } }));
    expect(bare.status).toBe(403);
    expect(bare.json<{ message: string }>().message).toBe('pods "r5" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  });
});

describe("TaintNodesByCondition admission", () => {
  it("taints a new node not-ready NoSchedule once", async () => {
    const r = await api.admin.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "n1" }, spec: { taints: [{ key: "dedicated", value: "x", effect: "NoSchedule" }] } });
    expect(r.status, r.text).toBe(201);
    expect(r.json<{ spec: { taints: Obj[] } }>().spec.taints).toEqual([
      { key: "dedicated", value: "x", effect: "NoSchedule" },
      { key: api.profile.taints.notReady, effect: "NoSchedule" },
    ]);
  });
});
