/** The Node authorizer and NodeRestriction through HTTPS against a real replica. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, profile, startAuthzServer, type AuthzServer } from "./testing/harness.ts";

let s: AuthzServer;
const coordination = profile.group("coordination");
const leaseNs = profile.nodeLeaseNamespace;

const node1 = () => s.as("system:node:node-1", ["system:nodes"]);
const node2 = () => s.as("system:node:node-2", ["system:nodes"]);
const admin = () => s.as("admin", ["system:masters"]);

function pod(name: string, nodeName: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: {
      nodeName,
      containers: [{ name: "c", image: "busybox", env: [{ name: "A", valueFrom: { secretKeyRef: { name: "s1", key: "k" } } }] }],
      volumes: [{ name: "cfg", configMap: { name: "cm1" } }],
      ...extra,
    },
  };
}

beforeAll(async () => {
  s = await startAuthzServer({ modes: ["Node", "RBAC"] });
  const a = await admin();
  const must = async (p: Promise<{ status: number; text: string }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${r.text}`);
  };
  await must(s.call(a, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } }));
  for (const n of ["node-1", "node-2"]) await must(s.call(a, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: n } }));
  for (const name of ["s1", "s2"]) await must(s.call(a, "POST", "/api/v1/namespaces/team-a/secrets", { apiVersion: "v1", kind: "Secret", metadata: { name }, data: { k: "dg==" } }));
  await must(s.call(a, "POST", "/api/v1/namespaces/team-a/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm1" }, data: { a: "b" } }));
  await must(s.call(a, "POST", "/api/v1/namespaces/team-a/pods", pod("p1", "node-1")));
  const n1 = await node1();
  await eventually(async () => (await s.call(n1, "GET", "/api/v1/namespaces/team-a/secrets/s1")).status === 200);
});

afterAll(async () => {
  await s?.close();
});

describe("Node authorizer over HTTPS", () => {
  it("reads secrets and ConfigMaps referenced by pods bound to the node only", async () => {
    const n1 = await node1();
    const n2 = await node2();
    expect((await s.call(n1, "GET", "/api/v1/namespaces/team-a/secrets/s1")).status).toBe(200);
    expect((await s.call(n1, "GET", "/api/v1/namespaces/team-a/configmaps/cm1")).status).toBe(200);
    const other = await s.call(n2, "GET", "/api/v1/namespaces/team-a/secrets/s1");
    expect(other.status).toBe(403);
    expect(other.body.message).toContain(`User "system:node:node-2" cannot get resource "secrets" in API group "" in the namespace "team-a"`);
    expect((await s.call(n1, "GET", "/api/v1/namespaces/team-a/secrets/s2")).status).toBe(403);
    expect((await s.call(n1, "GET", "/api/v1/namespaces/team-a/secrets")).status).toBe(403);
  });

  it("reads its own Node object only", async () => {
    const n1 = await node1();
    expect((await s.call(n1, "GET", "/api/v1/nodes/node-1")).status).toBe(200);
    expect((await s.call(n1, "GET", "/api/v1/nodes/node-2")).status).toBe(403);
    expect((await s.call(n1, "GET", "/api/v1/nodes")).status).toBe(403);
    expect((await s.call(n1, "GET", "/api/v1/nodes?fieldSelector=metadata.name%3Dnode-1")).status).toBe(200);
  });

  it("reads pods bound to it, and lists them by spec.nodeName", async () => {
    const n1 = await node1();
    const n2 = await node2();
    expect((await s.call(n1, "GET", "/api/v1/namespaces/team-a/pods/p1")).status).toBe(200);
    expect((await s.call(n2, "GET", "/api/v1/namespaces/team-a/pods/p1")).status).toBe(403);
    expect((await s.call(n1, "GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1")).status).toBe(200);
    expect((await s.call(n1, "GET", "/api/v1/pods")).status).toBe(403);
    expect((await s.call(n1, "GET", "/api/v1/services")).status).toBe(200);
  });

  it("updates status of its own node and bound pods only", async () => {
    const n1 = await node1();
    const n2 = await node2();
    const own = (await s.call(n1, "GET", "/api/v1/nodes/node-1")).body;
    expect((await s.call(n1, "PUT", "/api/v1/nodes/node-1/status", own)).status).toBe(200);
    const other = (await s.call(await admin(), "GET", "/api/v1/nodes/node-2")).body;
    expect((await s.call(n1, "PUT", "/api/v1/nodes/node-2", other)).status).toBe(403);
    const p = (await s.call(n1, "GET", "/api/v1/namespaces/team-a/pods/p1")).body;
    expect((await s.call(n1, "PUT", "/api/v1/namespaces/team-a/pods/p1/status", p)).status).toBe(200);
    expect((await s.call(n2, "PUT", "/api/v1/namespaces/team-a/pods/p1/status", p)).status).toBe(403);
  });

  it("writes events, its own lease in the node-lease namespace, and not other leases", async () => {
    const n1 = await node1();
    // An event about a cluster-scoped object is posted in "default", as the node agent does (Event validation requires it).
    const ev = { apiVersion: "v1", kind: "Event", metadata: { name: "e1" }, involvedObject: { kind: "Node", name: "node-1" }, reason: "Started", message: "m" };
    expect((await s.call(n1, "POST", "/api/v1/namespaces/default/events", ev)).status).toBe(201);
    const lease = (name: string) => ({ apiVersion: `${coordination}/v1`, kind: "Lease", metadata: { name }, spec: { holderIdentity: name } });
    const path = `/apis/${coordination}/v1/namespaces/${leaseNs}/leases`;
    expect((await s.call(n1, "POST", path, lease("node-1"))).status).toBe(201);
    expect((await s.call(n1, "GET", `${path}/node-1`)).status).toBe(200);
    expect((await s.call(n1, "POST", path, lease("node-2"))).status).toBe(403);
    expect((await s.call(n1, "GET", `${path}/node-2`)).status).toBe(403);
  });

  it("NodeRestriction: a node creates mirror pods only for itself", async () => {
    const n1 = await node1();
    const foreign = await s.call(n1, "POST", "/api/v1/namespaces/team-a/pods", pod("mirror-2", "node-2", { containers: [{ name: "c", image: "busybox" }] }));
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toContain('node "node-1" can only create pods with spec.nodeName set to itself');
    expect((await s.call(n1, "POST", "/api/v1/namespaces/team-a/pods", pod("mirror-1", "node-1", { containers: [{ name: "c", image: "busybox" }] }))).status).toBe(201);
  });

  it("ignores identities outside system:nodes", async () => {
    const fake = await s.as("system:node:node-1", ["other"]);
    expect((await s.call(fake, "GET", "/api/v1/namespaces/team-a/secrets/s1")).status).toBe(403);
  });

  it("loses access when the referencing pod goes away", async () => {
    const n1 = await node1();
    const a = await admin();
    expect((await s.call(a, "DELETE", "/api/v1/namespaces/team-a/pods/p1?gracePeriodSeconds=0")).status).toBeLessThan(300);
    await eventually(async () => (await s.call(n1, "GET", "/api/v1/namespaces/team-a/secrets/s1")).status === 403);
    // mirror-1 still references cm1.
    expect((await s.call(n1, "GET", "/api/v1/namespaces/team-a/configmaps/cm1")).status).toBe(200);
  });
});
