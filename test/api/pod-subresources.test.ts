/**
 * The pod subresources that change one part of a pod, over HTTPS: `ephemeralcontainers`
 * (GET answers the pod; PATCH/PUT add an ephemeral container and change nothing else;
 * existing ones may be neither removed nor changed; the platform's refusals for ports,
 * duplicate names and unknown targets) and `resize` (cpu and memory of a container change,
 * nothing else; other resources, and a change of QoS class, are refused). pods/status and
 * nodes/status change the status only, and the main resources keep the status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const pods = "/api/v1/namespaces/default/pods";
let api: TestApiserver;

interface PodBody {
  metadata: { resourceVersion: string };
  spec: { containers: Array<{ name: string; image: string; resources?: Record<string, Record<string, string>> }>; ephemeralContainers?: Array<{ name: string; image: string }> };
}

beforeAll(async () => {
  api = await startTestApiserver();
  const res = await api.admin.post(pods, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "app", labels: { a: "1" } },
    spec: { containers: [{ name: "main", image: "nginx:1.27", resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "200m", memory: "128Mi" } } }] },
  });
  expect(res.status, res.text).toBe(201);
});
afterAll(async () => {
  await api?.close();
});

const debuggerContainer = { name: "debugger", image: "busybox:1.36", targetContainerName: "main", stdin: true, tty: true };

describe("pods/ephemeralcontainers", () => {
  it("adds an ephemeral container and nothing else", async () => {
    const get = await api.admin.get(`${pods}/app/ephemeralcontainers`);
    expect(get.status).toBe(200);
    expect(get.json()).toMatchObject({ kind: "Pod", metadata: { name: "app" } });
    const res = await api.admin.patch(`${pods}/app/ephemeralcontainers`, { metadata: { labels: { a: "changed" } }, spec: { ephemeralContainers: [debuggerContainer], containers: [{ name: "main", image: "nginx:9" }] } }, "application/strategic-merge-patch+json");
    expect(res.status, res.text).toBe(200);
    const pod = res.json<PodBody & { metadata: { labels: Record<string, string> } }>();
    expect(pod.spec.ephemeralContainers).toEqual([expect.objectContaining({ name: "debugger", image: "busybox:1.36", targetContainerName: "main" })]);
    expect(pod.spec.containers[0].image).toBe("nginx:1.27");
    expect(pod.metadata.labels.a).toBe("1");
  });

  it("refuses removing or changing one, ports, a taken name and an unknown target", async () => {
    const current = (await api.admin.get(`${pods}/app`)).json<PodBody>();
    const removed = await api.admin.put(`${pods}/app/ephemeralcontainers`, { ...current, spec: { ...current.spec, ephemeralContainers: [] } });
    expect(removed.status).toBe(422);
    expect(removed.json<{ message: string }>().message).toBe('Pod "app" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed\n');
    const changed = await api.admin.put(`${pods}/app/ephemeralcontainers`, { ...current, spec: { ...current.spec, ephemeralContainers: [{ ...debuggerContainer, image: "alpine:3" }] } });
    expect(changed.json<{ message: string }>().message).toContain('existing ephemeral containers "debugger" may not be changed');
    const bad = await api.admin.patch(
      `${pods}/app/ephemeralcontainers`,
      { spec: { ephemeralContainers: [debuggerContainer, { name: "main", image: "busybox:1.36", ports: [{ containerPort: 80 }], targetContainerName: "nope" }] } },
      "application/merge-patch+json",
    );
    expect(bad.status).toBe(422);
    const message = bad.json<{ message: string }>().message;
    expect(message).toContain('spec.ephemeralContainers[1].name: Duplicate value: "main"');
    expect(message).toContain("spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container");
    expect(message).toContain('spec.ephemeralContainers[1].targetContainerName: Not found: "nope"');
  });

  it("the main resource still refuses ephemeral container changes", async () => {
    const res = await api.admin.patch(`${pods}/app`, { spec: { ephemeralContainers: [debuggerContainer, { name: "second", image: "busybox:1.36" }] } }, "application/merge-patch+json");
    expect(res.status).toBe(422);
  });
});

describe("pods/resize", () => {
  it("changes cpu and memory of a container and nothing else", async () => {
    const res = await api.admin.patch(
      `${pods}/app/resize`,
      { spec: { containers: [{ name: "main", image: "nginx:9", resources: { requests: { cpu: "150m", memory: "96Mi" }, limits: { cpu: "300m", memory: "128Mi" } } }] } },
      "application/strategic-merge-patch+json",
    );
    expect(res.status, res.text).toBe(200);
    const pod = res.json<PodBody>();
    expect(pod.spec.containers[0]).toMatchObject({ image: "nginx:1.27", resources: { requests: { cpu: "150m", memory: "96Mi" }, limits: { cpu: "300m" } } });
  });

  it("refuses other resources and a change of QoS class", async () => {
    const other = await api.admin.patch(`${pods}/app/resize`, { spec: { containers: [{ name: "main", resources: { requests: { "ephemeral-storage": "1Gi" } } }] } }, "application/strategic-merge-patch+json");
    expect(other.status).toBe(422);
    expect(other.json<{ message: string }>().message).toBe('Pod "app" is invalid: spec: Forbidden: only cpu and memory resources are mutable');
    const guaranteed = await api.admin.patch(
      `${pods}/app/resize`,
      { spec: { containers: [{ name: "main", resources: { requests: { cpu: "300m", memory: "128Mi" }, limits: { cpu: "300m", memory: "128Mi" } } }] } },
      "application/strategic-merge-patch+json",
    );
    expect(guaranteed.status).toBe(422);
    expect(guaranteed.json<{ message: string }>().message).toBe('Pod "app" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing');
  });
});

describe("pods/status and nodes/status", () => {
  it("pods/status changes the status (and conditions) only; the main resource keeps the status", async () => {
    const cur = (await api.admin.get(`${pods}/app`)).json<PodBody & { status?: Record<string, unknown> }>();
    const st = await api.admin.put(`${pods}/app/status`, {
      ...cur,
      spec: { ...cur.spec, containers: cur.spec.containers.map((c) => ({ ...c, image: "nginx:9.9" })) },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
    });
    expect(st.status, st.text).toBe(200);
    const after = st.json<PodBody & { status: { phase: string } }>();
    expect(after.status.phase).toBe("Running");
    expect(after.spec.containers[0].image).toBe("nginx:1.27");
    const main = await api.admin.put(`${pods}/app`, { ...after, status: { phase: "Failed" } });
    expect(main.status, main.text).toBe(200);
    expect(main.json<{ status: { phase: string } }>().status.phase).toBe("Running");
  });

  it("nodes/status changes the status only", async () => {
    const made = await api.admin.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "status-node" }, spec: { unschedulable: false } });
    expect(made.status, made.text).toBe(201);
    const node = made.json<{ metadata: Record<string, unknown>; spec: Record<string, unknown> }>();
    const st = await api.admin.put("/api/v1/nodes/status-node/status", { ...node, spec: { unschedulable: true }, status: { capacity: { cpu: "4" }, conditions: [{ type: "Ready", status: "True" }] } });
    expect(st.status, st.text).toBe(200);
    const after = st.json<{ spec: { unschedulable?: boolean }; status: { capacity: Record<string, string> } }>();
    expect(after.status.capacity).toEqual({ cpu: "4" });
    expect(after.spec.unschedulable ?? false).toBe(false);
    const main = await api.admin.put("/api/v1/nodes/status-node", { ...after, status: { capacity: { cpu: "1" } } });
    expect(main.status, main.text).toBe(200);
    expect(main.json<{ status: { capacity: Record<string, string> } }>().status.capacity).toEqual({ cpu: "4" });
  });
});
