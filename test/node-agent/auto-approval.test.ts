/**
 * TLS bootstrap with automatic approval end to end: a node-agent process with only a
 * bootstrap token; the controller manager's CSR approver (a SubjectAccessReview for
 * `certificatesigningrequests/nodeclient`, granted to the bootstrappers group by the
 * default role) and signer (the cluster CA through --cluster-signing-* settings) run
 * in process over HTTPS; nobody else touches the request. The agent gets its client
 * certificate, signed by the cluster CA for system:node:<name>, and registers its Node.
 */
import { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "../../services/apiserver/server/certs.ts"; // installs the Reflect metadata the X.509 library needs
import { runControllers, type RunningControllers } from "../../services/controller-manager/controllers.ts";
import type { ResourceRef } from "../../shared/client/object-client.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";
import { NODES, createBootstrapToken, getOrUndefined, startAgentProcess, startAgentTestCluster, waitFor, writeKubeconfig, type AgentProcess, type AgentTestCluster } from "./harness.ts";

const x509 = await import("@peculiar/x509");
x509.cryptoProvider.set(webcrypto);

const NODE = "auto-node";
let token = "";
let c: AgentTestCluster;
let cri: CriServer;
let controllers: RunningControllers;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  c = await startAgentTestCluster();
  cri = await startCriServer();
  const profile = c.api.profile;
  token = await createBootstrapToken(c, "autoid", "0123456789autoap", [
    ["node-bootstrappers", "system:node-bootstrapper"],
    ["node-autoapprove", `system:${profile.group("certificates")}:certificatesigningrequests:nodeclient`],
  ]);
  controllers = await runControllers(c.admin, {
    controllers: ["csrapproving", "csrsigning"],
    namespaceFinalizer: profile.namespaceFinalizer,
    profile,
    settings: { clusterSigningCertPem: c.ca.certPem, clusterSigningKeyPem: c.ca.keyPem },
  });
}, 60_000);
afterAll(async () => {
  await agent?.stop();
  controllers?.stop();
  await cri?.close();
  await c?.close();
});

describe("TLS bootstrap with the controller manager's approver and signer", () => {
  it("the node's client request is approved and signed without the test, and the agent registers with it", async () => {
    const bootstrapKubeconfig = writeKubeconfig(join(c.dir, "bootstrap-kubeconfig"), c.relay.url, c.ca.certPem, { token });
    const rootDir = join(c.dir, "root");
    const startedAt = Date.now();
    agent = await startAgentProcess(["--bootstrap-kubeconfig", bootstrapKubeconfig, "--kubeconfig", join(rootDir, "kubeconfig"), "--hostname-override", NODE, "--container-runtime-endpoint", cri.endpoint, "--node-status-update-frequency", "500ms"], { rootDir });
    const csrs: ResourceRef = { group: c.api.profile.group("certificates"), version: "v1", resource: "certificatesigningrequests" };
    const [csr] = (await c.admin.list(csrs)).items;
    const conditions = (csr.status as { conditions?: Array<{ type: string; reason: string }> }).conditions ?? [];
    expect(conditions.map((x) => [x.type, x.reason])).toContainEqual(["Approved", "AutoApproved"]);

    const pem = readFileSync(join(rootDir, "pki", "kubelet-client-current.pem"), "utf8");
    const cert = new x509.X509Certificate(pem.slice(0, pem.indexOf("-----END CERTIFICATE-----") + 25));
    expect(cert.subject).toBe(`O=system:nodes, CN=system:node:${NODE}`);
    expect(cert.issuer).toBe(c.ca.cert.subject);
    expect(await cert.verify({ publicKey: c.ca.cert.publicKey, signatureOnly: true })).toBe(true);

    const node = await waitFor(async () => getOrUndefined(c.admin, NODES, NODE), 20_000, "node registered with the issued certificate");
    expect(node.metadata.name).toBe(NODE);
    console.log(`auto approval: agent started, certificate issued and node registered in ${Date.now() - startedAt} ms`);
  }, 60_000);
});
