/**
 * TLS bootstrap end to end: a node-agent process with only a bootstrap token creates a
 * CertificateSigningRequest for system:node:<name> in system:nodes with the node client
 * signer; the test approves it (approval subresource) and signs it with the cluster CA
 * (status subresource), as the controller manager's approver and signer would; the agent
 * writes its certificate under --root-dir/pki and uses it to register its Node, and a
 * restart reuses it without a new request.
 */
import { webcrypto } from "node:crypto";
import { lstatSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import "../../services/apiserver/server/certs.ts"; // installs the Reflect metadata the X.509 library needs
import { isStatusError } from "../../shared/api/status.ts";
import type { ApiObject, ResourceRef } from "../../shared/client/object-client.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";
import { NODES, createBootstrapToken, getOrUndefined, startAgentProcess, startAgentTestCluster, waitFor, writeKubeconfig, type AgentProcess, type AgentTestCluster } from "./harness.ts";

const x509 = await import("@peculiar/x509");
x509.cryptoProvider.set(webcrypto);

const NODE = "bs-node";
const TOKEN_ID = "abcdef";
const TOKEN_SECRET = "0123456789abcdef";
let c: AgentTestCluster;
let cri: CriServer;
let csrs: ResourceRef;
const agents: AgentProcess[] = [];
const FIRST_VALIDITY_MS = 16_000;
let firstNotAfter = 0;
let firstCsr = "";

/** A client certificate for the request's key and subject, signed by the cluster CA, valid for `validityMs` from a second ago. */
async function sign(requestPem: string, validityMs: number): Promise<string> {
  const csr = new x509.Pkcs10CertificateRequest(requestPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Date.now().toString(16),
    subject: csr.subject,
    issuer: c.ca.cert.subject,
    notBefore: new Date(Math.floor(Date.now() / 1000) * 1000 - 1000),
    notAfter: new Date(Math.floor(Date.now() / 1000) * 1000 - 1000 + validityMs),
    publicKey: await csr.publicKey.export(),
    signingKey: c.ca.privateKey,
    signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true), new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
  });
  return cert.toString("pem");
}

/**
 * Approves through the approval subresource; a server that does not serve it (404) gets
 * the Approved condition through the status subresource instead.
 */
async function approve(csr: ApiObject, status: object): Promise<ApiObject> {
  try {
    return await c.admin.update(csrs, { ...csr, status }, { subresource: "approval" });
  } catch (err) {
    if (!isStatusError(err, "NotFound")) throw err;
    console.log("the approval subresource is not served (404): approving through the status subresource");
    return c.admin.update(csrs, { ...csr, status }, { subresource: "status" });
  }
}

beforeAll(async () => {
  c = await startAgentTestCluster();
  cri = await startCriServer();
  const profile = c.api.profile;
  csrs = { group: profile.group("certificates"), version: "v1", resource: "certificatesigningrequests" };
  await createBootstrapToken(c, TOKEN_ID, TOKEN_SECRET, [["node-bootstrappers", "system:node-bootstrapper"]]);
}, 60_000);

afterAll(async () => {
  for (const a of agents) await a.stop();
  await cri?.close();
  await c?.close();
});

describe("TLS bootstrap", () => {
  it("requests, receives and uses a node client certificate; a restart reuses it", async () => {
    const profile = c.api.profile;
    const bootstrapKubeconfig = writeKubeconfig(join(c.dir, "bootstrap-kubeconfig"), c.relay.url, c.ca.certPem, { token: `${TOKEN_ID}.${TOKEN_SECRET}` });
    const rootDir = join(c.dir, "root");
    const kubeconfig = join(rootDir, "kubeconfig");
    const args = ["--bootstrap-kubeconfig", bootstrapKubeconfig, "--kubeconfig", kubeconfig, "--hostname-override", NODE, "--container-runtime-endpoint", cri.endpoint, "--node-status-update-frequency", "500ms"];
    const output: string[] = [];
    const starting = startAgentProcess(args, { rootDir, output });
    starting.catch(() => undefined);

    const csr = await waitFor(async () => (await c.admin.list(csrs)).items.find((x) => String(x.metadata.name).startsWith("node-csr-")), 30_000, "certificate signing request created").catch((err: Error) => {
      throw new Error(`${err.message}\n${output.join("")}`);
    });
    const spec = csr.spec as { signerName: string; usages: string[]; request: string };
    expect(csr.metadata.name).toMatch(/^node-csr-/);
    expect(spec.signerName).toBe(`${profile.admission.signerPrefix}kube-apiserver-client-kubelet`);
    expect([...spec.usages].sort()).toEqual(["client auth", "digital signature"]);
    const requestPem = Buffer.from(spec.request, "base64").toString("utf8");
    const request = new x509.Pkcs10CertificateRequest(requestPem);
    expect(request.subject).toBe(`O=system:nodes, CN=system:node:${NODE}`);

    const name = String(csr.metadata.name);
    firstCsr = name;
    const approval = { conditions: [{ type: "Approved", status: "True", reason: "TestApproved", message: "approved by the test" }] };
    const approved = await approve(csr, approval);
    // Short-lived, so that the agent rotates it (the next test) at 70-90% of 16 s.
    const certPem = await sign(requestPem, FIRST_VALIDITY_MS);
    firstNotAfter = Date.now() + FIRST_VALIDITY_MS;
    await c.admin.update(csrs, { ...approved, status: { ...(approved.status as object), certificate: Buffer.from(certPem).toString("base64") } }, { subresource: "status" });

    const agent = await starting;
    agents.push(agent);
    const current = join(rootDir, "pki", "kubelet-client-current.pem");
    expect(lstatSync(current).isSymbolicLink()).toBe(true);
    const target = readlinkSync(current);
    expect(target).toMatch(/kubelet-client-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}\.pem$/);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    const written = readFileSync(target, "utf8");
    expect(written).toContain(certPem.trim());
    expect(written).toContain("PRIVATE KEY");
    const config = parse(readFileSync(kubeconfig, "utf8")) as { users: Array<{ user: Record<string, string> }> };
    expect(config.users[0].user).toEqual({ "client-certificate": current, "client-key": current });

    // Registration needs the node identity: the bootstrap token may not create Nodes.
    const node = await waitFor(async () => {
      const n = await getOrUndefined(c.admin, NODES, NODE);
      return n && ((n.status as { conditions?: unknown[] } | undefined)?.conditions ?? []).length > 0 ? n : undefined;
    }, 20_000, "node registered with the new certificate");
    expect(node.metadata.labels?.[profile.labels.hostname]).toBe(NODE);

    // A restart with the same root dir uses the written configuration: no new request.
    await agent.stop();
    agents.pop();
    const again = await startAgentProcess(args, { rootDir });
    agents.push(again);
    const all = (await c.admin.list(csrs)).items as ApiObject[];
    expect(all.map((x) => x.metadata.name)).toEqual([name]);
    expect(again.output()).not.toContain("TLS bootstrap");
  }, 90_000);

  it("rotates the client certificate at 70-90% of its validity with a new request, and keeps heartbeating after the old one expired", async () => {
    const profile = c.api.profile;
    const csr = await waitFor(async () => (await c.admin.list(csrs)).items.find((x) => x.metadata.name !== firstCsr && String(x.metadata.name).startsWith("node-csr-")), 40_000, "rotation request created");
    const requestedAt = Date.now();
    expect(requestedAt).toBeGreaterThanOrEqual(firstNotAfter - FIRST_VALIDITY_MS * 0.3 - 2000);
    expect(requestedAt).toBeLessThan(firstNotAfter);
    const spec = csr.spec as { signerName: string; request: string };
    expect(spec.signerName).toBe(`${profile.admission.signerPrefix}kube-apiserver-client-kubelet`);
    const requestPem = Buffer.from(spec.request, "base64").toString("utf8");
    const approved = await approve(csr, { conditions: [{ type: "Approved", status: "True", reason: "TestApproved", message: "rotation approved by the test" }] });
    const certPem = await sign(requestPem, 24 * 3600_000);
    await c.admin.update(csrs, { ...approved, status: { ...(approved.status as object), certificate: Buffer.from(certPem).toString("base64") } }, { subresource: "status" });
    const current = join(c.dir, "root", "pki", "kubelet-client-current.pem");
    await waitFor(() => (readFileSync(current, "utf8").includes(certPem.trim()) ? true : undefined), 15_000, "rotated certificate written");
    // After the first certificate expired, the agent still renews its Lease: it uses the new one.
    const leases = { group: profile.group("coordination"), version: "v1", resource: "leases" };
    await new Promise((r) => setTimeout(r, Math.max(0, firstNotAfter - Date.now()) + 500));
    const renewed = await waitFor(async () => {
      const lease = await c.admin.get(leases, NODE, { namespace: profile.nodeLeaseNamespace });
      return Date.parse(String((lease.spec as { renewTime: string }).renewTime)) > firstNotAfter + 200 ? lease : undefined;
    }, 15_000, "lease renewed after the first certificate expired");
    expect(renewed.spec).toMatchObject({ holderIdentity: NODE });
  }, 90_000);
});
