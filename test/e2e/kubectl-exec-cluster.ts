/**
 * The cluster the streaming e2e tests share (one per test file): a real apiserver
 * replica (kubernetes profile, Node and RBAC authorization, an agent client certificate
 * from `kubeletClient`), a real node-agent process on the test container runtime (its
 * streaming server runs real child processes and dials loopback for port-forward), a
 * namespace and pods bound to the node that the agent has seen. `close()` stops all.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { createCA, createClientCert, createServingCert, type KeyPairPem } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { startCriServer, type CriServer, type FakePod } from "../support/cri-server.ts";
import { HttpsClient } from "../support/https-client.ts";
import { startAgentProcess, waitFor, writeKubeconfig, type AgentProcess } from "../node-agent/harness.ts";

export interface StreamingCluster {
  dir: string;
  api: TestApiserver;
  admin: HttpsClient;
  cri: CriServer;
  agent: AgentProcess;
  caPem: string;
  adminCert: KeyPairPem;
  /** Admin kubeconfig for kubectl. */
  kubeconfig: string;
  /** A client certificate of `user` (no groups) and a kubeconfig with it. */
  user(name: string): Promise<{ cert: KeyPairPem; kubeconfig: string }>;
  close(): Promise<void>;
}

export const NODE = "stream-node";

/** Starts the cluster with `pods` (each bound to the node, known to the runtime) in namespace `ns`. */
export async function startStreamingCluster(prefix: string, ns: string, pods: Array<Omit<FakePod, "uid" | "namespace">>): Promise<StreamingCluster> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const ca = await createCA({ commonName: `${prefix}-ca` });
  const caFile = join(dir, "ca.crt");
  writeFileSync(caFile, ca.certPem);
  const serving = await createServingCert(ca);
  const agentClient = await createClientCert(ca, { user: "apiserver-agent-client", groups: ["system:masters"] });
  const api = await startTestApiserver({
    profileId: "kubernetes",
    tls: { key: serving.keyPem, cert: serving.certPem, clientCa: ca.certPem },
    security: { authentication: { ...defaultAuthenticationOptions(), clientCaFile: caFile }, authorization: { modes: ["Node", "RBAC"] } },
    kubeletClient: { certPem: agentClient.certPem, keyPem: agentClient.keyPem, preferredAddressTypes: ["InternalIP"] },
  });
  const adminCert = await createClientCert(ca, { user: "admin", groups: ["system:masters"] });
  const admin = new HttpsClient(api.replica.url, { ca: ca.certPem, cert: adminCert.certPem, key: adminCert.keyPem });
  const kubeconfig = writeKubeconfig(join(dir, "admin.kubeconfig"), api.replica.url, ca.certPem, { cert: adminCert });
  const nodeKubeconfig = writeKubeconfig(join(dir, "node.kubeconfig"), api.replica.url, ca.certPem, { cert: await createClientCert(ca, { user: `system:node:${NODE}`, groups: ["system:nodes"] }) });
  const cri = await startCriServer();
  expect((await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } })).status).toBe(201);
  const agent = await startAgentProcess(["--profile", "kubernetes", "--kubeconfig", nodeKubeconfig, "--hostname-override", NODE, "--node-ip", "127.0.0.1", "--container-runtime-endpoint", cri.endpoint, "--client-ca-file", caFile]);
  for (const pod of pods) {
    const res = await admin.post(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: pod.name },
      spec: { nodeName: NODE, automountServiceAccountToken: false, containers: pod.containers.map((c) => ({ name: c, image: "busybox:1.36" })) },
    });
    expect(res.status, res.text).toBe(201);
    cri.addPod({ ...pod, namespace: ns, uid: res.json<{ metadata: { uid: string } }>().metadata.uid });
    // What the agent would report for a started pod (kubectl port-forward asks for Running).
    const running = await admin.patch(`/api/v1/namespaces/${ns}/pods/${pod.name}/status`, { status: { phase: "Running" } }, "application/merge-patch+json");
    expect(running.status, running.text).toBe(200);
  }
  // The agent serves a pod once its pod reflector saw it.
  await waitFor(async () => {
    const res = await admin.get(`/api/v1/nodes/${NODE}/proxy/pods`);
    const names = res.status === 200 ? res.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((p) => p.metadata.name) : [];
    return pods.every((p) => names.includes(p.name)) ? true : undefined;
  }, 30_000, "the agent knowing its pods");
  return {
    dir,
    api,
    admin,
    cri,
    agent,
    caPem: ca.certPem,
    adminCert,
    kubeconfig,
    async user(name) {
      const cert = await createClientCert(ca, { user: name, groups: [] });
      return { cert, kubeconfig: writeKubeconfig(join(dir, `${name}.kubeconfig`), api.replica.url, ca.certPem, { cert }) };
    },
    async close() {
      await agent.stop();
      await cri.close();
      admin.close();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
