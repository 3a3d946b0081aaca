/**
 * The serving certificate through a certificate signing request
 * (`--rotate-server-certificates`), from a real agent process with a node client
 * certificate: the agent asks for `<profile>/kubelet-serving` with usages digital
 * signature and server auth, subject system:node:<name> in system:nodes and its names
 * as subject alternative names; a test approver approves and signs it with the cluster
 * CA; the agent writes kubelet-server-current.pem (0600) and serves it: a TLS client
 * trusting only the cluster CA connects for the node's name. A restart reuses it.
 */
import { webcrypto } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "../../services/apiserver/server/certs.ts"; // installs the Reflect metadata the X.509 library needs
import type { ApiObject, ResourceRef } from "../../shared/client/object-client.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";
import { startAgentProcess, startAgentTestCluster, waitFor, type AgentProcess, type AgentTestCluster } from "./harness.ts";

const x509 = await import("@peculiar/x509");
x509.cryptoProvider.set(webcrypto);

const NODE = "serving-node";
let c: AgentTestCluster;
let cri: CriServer;
let csrs: ResourceRef;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  c = await startAgentTestCluster();
  cri = await startCriServer();
  csrs = { group: c.api.profile.group("certificates"), version: "v1", resource: "certificatesigningrequests" };
}, 60_000);
afterAll(async () => {
  for (const a of agents) await a.stop();
  await cri?.close();
  await c?.close();
});

/** The subject alternative names a request asks for (the extension request attribute). */
function requestedNames(csr: InstanceType<typeof x509.Pkcs10CertificateRequest>): InstanceType<typeof x509.SubjectAlternativeNameExtension> | undefined {
  const ext = csr.extensions.find((e) => e.type === "2.5.29.17");
  return ext ? new x509.SubjectAlternativeNameExtension(ext.rawData) : undefined;
}

async function sign(requestPem: string): Promise<string> {
  const csr = new x509.Pkcs10CertificateRequest(requestPem);
  const san = requestedNames(csr);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Date.now().toString(16),
    subject: csr.subject,
    issuer: c.ca.cert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 24 * 3600_000),
    publicKey: await csr.publicKey.export(),
    signingKey: c.ca.privateKey,
    signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true), new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]), ...(san ? [san] : [])],
  });
  return cert.toString("pem");
}

/** The certificate the agent serves to a client that trusts only the cluster CA and asks for the node's name. */
function servedCertificate(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, servername: NODE, ca: c.ca.certPem }, () => {
      const der = socket.getPeerCertificate().raw;
      socket.end();
      resolve(new x509.X509Certificate(der).toString("pem"));
    });
    socket.on("error", reject);
  });
}

describe("serving certificate through a CSR", () => {
  it("requests kubelet-serving, serves the issued certificate, and reuses it after a restart", async () => {
    const kubeconfig = await c.kubeconfigFor(`system:node:${NODE}`, ["system:nodes"]);
    const rootDir = join(c.dir, "root");
    const args = ["--kubeconfig", kubeconfig, "--hostname-override", NODE, "--container-runtime-endpoint", cri.endpoint, "--rotate-server-certificates"];
    const agent = await startAgentProcess(args, { rootDir });
    agents.push(agent);
    const csr = await waitFor(async () => (await c.admin.list(csrs)).items.find((x) => (x.spec as { signerName: string }).signerName.endsWith("/kubelet-serving")), 20_000, "serving request");
    const spec = csr.spec as { signerName: string; usages: string[]; request: string; username?: string };
    expect(spec.signerName).toBe(`${c.api.profile.admission.signerPrefix}kubelet-serving`);
    expect([...spec.usages].sort()).toEqual(["digital signature", "server auth"]);
    expect(spec.username).toBe(`system:node:${NODE}`);
    const requestPem = Buffer.from(spec.request, "base64").toString("utf8");
    const request = new x509.Pkcs10CertificateRequest(requestPem);
    expect(request.subject).toBe(`O=system:nodes, CN=system:node:${NODE}`);
    const names = requestedNames(request)?.names.toJSON().map((n) => n.value) ?? [];
    expect(names).toContain(NODE);

    // The test approver and signer.
    const approved = await c.admin.update(csrs, { ...csr, status: { conditions: [{ type: "Approved", status: "True", reason: "TestApproved", message: "serving certificate approved by the test" }] } }, { subresource: "approval" });
    const certPem = await sign(requestPem);
    await c.admin.update(csrs, { ...(approved as ApiObject), status: { ...(approved.status as object), certificate: Buffer.from(certPem).toString("base64") } }, { subresource: "status" });

    const port = Number(new URL(agent.url).port);
    const served = await waitFor(async () => {
      const pem = await servedCertificate(port).catch(() => undefined);
      return pem?.trim() === certPem.trim() ? pem : undefined;
    }, 15_000, "issued serving certificate served");
    expect(served.trim()).toBe(certPem.trim());
    expect(statSync(join(rootDir, "pki", "kubelet-server-current.pem")).mode & 0o777).toBe(0o600);

    await agent.stop();
    agents.pop();
    const again = await startAgentProcess(args, { rootDir });
    agents.push(again);
    expect((await servedCertificate(Number(new URL(again.url).port))).trim()).toBe(certPem.trim());
    expect((await c.admin.list(csrs)).items).toHaveLength(1);
  }, 60_000);
});
