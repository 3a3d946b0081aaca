/**
 * The Node authorizer over HTTPS: a node reads a Secret that a pod bound to it refers to
 * only through an `azureFile` volume or a CSI volume's `nodePublishSecretRef` (the
 * platform's pod visitor lists both); before the binding, and for other nodes, it is 403.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startAuthzServer, type AuthzServer } from "./testing/harness.ts";

let s: AuthzServer;
const ns = "vol-a";
const admin = () => s.as("admin", ["system:masters"]);
const node = (name: string) => s.as(`system:node:${name}`, ["system:nodes"]);

const VOLUMES: Record<string, Record<string, unknown>> = {
  "azure-file": { azureFile: { secretName: "azure-file", shareName: "share" } },
  "csi-publish": { csi: { driver: "csi.example.net", nodePublishSecretRef: { name: "csi-publish" } } },
};

async function must(p: Promise<{ status: number; text: string }>): Promise<void> {
  const r = await p;
  if (r.status >= 300) throw new Error(`${r.status}: ${r.text}`);
}

beforeAll(async () => {
  s = await startAuthzServer({ modes: ["Node", "RBAC"] });
  const a = await admin();
  await must(s.call(a, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }));
  for (const n of ["node-1", "node-2"]) await must(s.call(a, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: n } }));
  for (const [name, source] of Object.entries(VOLUMES)) {
    await must(s.call(a, "POST", `/api/v1/namespaces/${ns}/secrets`, { apiVersion: "v1", kind: "Secret", metadata: { name }, data: { k: "dg==" } }));
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "busybox" }], volumes: [{ name: "v", ...source }] } };
    await must(s.call(a, "POST", `/api/v1/namespaces/${ns}/pods`, pod));
  }
});

afterAll(async () => {
  await s?.close();
});

describe("Node authorizer: Secrets of azureFile and CSI volumes", () => {
  it.each(Object.keys(VOLUMES))("%s: readable by the node the pod is bound to, 403 before and for other nodes", async (name) => {
    const n1 = await node("node-1");
    const n2 = await node("node-2");
    const secret = `/api/v1/namespaces/${ns}/secrets/${name}`;
    expect((await s.call(n1, "GET", secret)).status).toBe(403);
    const binding = { apiVersion: "v1", kind: "Binding", metadata: { name }, target: { apiVersion: "v1", kind: "Node", name: "node-1" } };
    await must(s.call(await admin(), "POST", `/api/v1/namespaces/${ns}/pods/${name}/binding`, binding));
    await eventually(async () => (await s.call(n1, "GET", secret)).status === 200);
    const other = await s.call(n2, "GET", secret);
    expect(other.status).toBe(403);
    expect(other.body.message).toContain(`User "system:node:node-2" cannot get resource "secrets" in API group "" in the namespace "${ns}"`);
  });
});
