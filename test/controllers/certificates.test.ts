/**
 * The CSR controllers in a real controller-manager process over HTTPS, against a
 * replica with RBAC: a node client request from a user allowed
 * `certificatesigningrequests/nodeclient` is auto-approved (condition Approved /
 * AutoApproved) and signed by the cluster signing CA; the same request from a user
 * without that permission stays pending; client and kubelet serving requests approved
 * by an admin are signed with the requested usages and the duration from
 * `--cluster-signing-duration` or `spec.expirationSeconds`; a request the kubelet
 * client signer refuses gets Failed / SignerValidationFailure; a request whose
 * certificate expired (a CA that ends in seconds) is deleted by the cleaner.
 */
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { createRequest, createSigningCA } from "../../services/controller-manager/pki/x509.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";
import { eventually, startControllerManager, stopAll, type ControllerManagerProcess } from "./support.ts";

const ADMIN = "admin-token-0123456789";
const BOOT = "abcdef.0123456789abcdef";
const MALLORY = "mallory-token-0123456789";
const DAY = 86_400_000;

let api: TestApiserver;
let dir: string;
let admin: HttpsClient;
let boot: HttpsClient;
let mallory: HttpsClient;
let kubeconfig: string;
let cm: ControllerManagerProcess;
let caPem: string;
type Obj = Record<string, unknown>;
interface Csr {
  metadata: { name: string };
  status?: { certificate?: string; conditions?: Array<{ type: string; reason?: string; message?: string }> };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cm-csr-"));
  const authentication = defaultAuthenticationOptions();
  writeFileSync(join(dir, "tokens.csv"), `${ADMIN},admin,0,system:masters\n${BOOT},system:bootstrap:abcdef,10,system:bootstrappers\n${MALLORY},mallory,11,devs\n`);
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
  admin = new HttpsClient(api.replica.url, { ca: api.ca, token: ADMIN });
  boot = new HttpsClient(api.replica.url, { ca: api.ca, token: BOOT });
  mallory = new HttpsClient(api.replica.url, { ca: api.ca, token: MALLORY });
  const rbac = api.profile.group("rbac");
  const cert = api.profile.group("certificates");
  const role = (name: string, resources: string[]): Obj => ({ apiVersion: `${rbac}/v1`, kind: "ClusterRole", metadata: { name }, rules: [{ apiGroups: [cert], resources, verbs: ["create", "get"] }] });
  const bind = (name: string, group: string): Obj => ({ apiVersion: `${rbac}/v1`, kind: "ClusterRoleBinding", metadata: { name }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name }, subjects: [{ apiGroup: rbac, kind: "Group", name: group }] });
  for (const [name, resources, group] of [
    ["node-bootstrapper", ["certificatesigningrequests", "certificatesigningrequests/nodeclient"], "system:bootstrappers"],
    ["csr-creator", ["certificatesigningrequests"], "devs"],
  ] as const) {
    expect((await admin.post(`/apis/${rbac}/v1/clusterroles`, role(name, [...resources]))).status).toBe(201);
    expect((await admin.post(`/apis/${rbac}/v1/clusterrolebindings`, bind(name, group))).status).toBe(201);
  }
  kubeconfig = join(dir, "cm.kubeconfig");
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${api.replica.url}\n    certificate-authority-data: ${b64(api.ca)}\nusers:\n- name: u\n  user:\n    token: ${ADMIN}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`,
  );
  const ca = await createSigningCA("cluster-signer", DAY);
  caPem = ca.certPem;
  writeFileSync(join(dir, "ca.crt"), ca.certPem);
  writeFileSync(join(dir, "ca.key"), ca.keyPem);
  cm = await startControllerManager(kubeconfig, "plat", [
    "--leader-elect=false",
    "--controllers",
    "csrapproving,csrsigning,csrcleaner",
    "--cluster-signing-cert-file",
    join(dir, "ca.crt"),
    "--cluster-signing-key-file",
    join(dir, "ca.key"),
    "--cluster-signing-duration",
    "2h",
  ]);
  expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);
});

afterAll(async () => {
  stopAll();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const csrPath = () => `/apis/${api.profile.group("certificates")}/v1/certificatesigningrequests`;
const signer = (s: string) => `${api.profile.admission.signerPrefix}${s}`;

async function submit(client: HttpsClient, name: string, cn: string, orgs: string[], signerName: string, usages: string[], extra: Obj = {}, sans: { dns?: string[]; ip?: string[] } = {}): Promise<void> {
  const { csrPem } = await createRequest(cn, orgs, sans);
  const r = await client.post(csrPath(), {
    apiVersion: `${api.profile.group("certificates")}/v1`,
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: { request: Buffer.from(csrPem).toString("base64"), signerName, usages, ...extra },
  });
  expect(r.status, r.text).toBe(201);
}

async function read(name: string): Promise<Csr | undefined> {
  const r = await admin.get(`${csrPath()}/${name}`);
  return r.status === 200 ? r.json<Csr>() : undefined;
}

async function approve(name: string): Promise<void> {
  const csr = await read(name);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const body = { ...csr, status: { ...csr?.status, conditions: [{ type: "Approved", status: "True", reason: "TestApproval", message: "approved by the test", lastUpdateTime: now }] } };
  let r = await admin.request("PUT", `${csrPath()}/${name}/approval`, { body });
  // An API server without the approval subresource takes the condition through status.
  if (r.status === 404 && !r.json<{ details?: { name?: string } }>().details?.name) r = await admin.request("PUT", `${csrPath()}/${name}/status`, { body });
  expect(r.status, r.text).toBe(200);
}

function issued(csr: Csr | undefined): X509Certificate | undefined {
  return csr?.status?.certificate ? new X509Certificate(Buffer.from(csr.status.certificate, "base64").toString("utf8")) : undefined;
}

describe("CSR approving, signing and cleaning", () => {
  it("auto-approves and signs a node client request after a SubjectAccessReview; leaves a request of an unauthorized user pending", async () => {
    // Each requester states its own identity in spec.username/groups, as the platform's
    // server fills them in on create (this API server stores them as sent so far).
    const bootIdentity = { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers", "system:authenticated"] };
    await submit(boot, "node-n1", "system:node:n1", ["system:nodes"], signer("kube-apiserver-client-kubelet"), ["digital signature", "client auth"], bootIdentity);
    await submit(mallory, "node-n2", "system:node:n2", ["system:nodes"], signer("kube-apiserver-client-kubelet"), ["digital signature", "client auth"], { username: "mallory", groups: ["devs", "system:authenticated"] });
    const signed = await eventually(async () => issued(await read("node-n1")), 15_000);
    expect(signed, `${JSON.stringify(await read("node-n1"))}\n${cm.output()}`).toBeDefined();
    const csr = await read("node-n1");
    expect(csr?.status?.conditions?.find((c) => c.type === "Approved")).toMatchObject({ reason: "AutoApproved", message: "Auto approving kubelet client certificate after SubjectAccessReview." });
    expect(signed?.subject).toContain("CN=system:node:n1");
    expect(signed?.subject).toContain("O=system:nodes");
    expect(signed?.verify(new X509Certificate(caPem).publicKey)).toBe(true);
    const lifetime = Date.parse(signed?.validTo ?? "") - Date.now();
    expect(lifetime).toBeGreaterThan(2 * 3_600_000 - 120_000);
    expect(lifetime).toBeLessThanOrEqual(2 * 3_600_000);
    // The unauthorized user's request was seen in the same passes and is still pending.
    const pending = await read("node-n2");
    expect(pending?.status?.conditions ?? []).toEqual([]);
    expect(pending?.status?.certificate).toBeUndefined();
  });

  it("signs approved client and kubelet serving requests with their usages and expirationSeconds", async () => {
    await submit(admin, "client-c1", "alice", ["devs"], signer("kube-apiserver-client"), ["digital signature", "client auth"], { expirationSeconds: 3600 });
    await submit(admin, "serving-s1", "system:node:n1", ["system:nodes"], signer("kubelet-serving"), ["digital signature", "server auth"], {}, { dns: ["n1.example"], ip: ["10.0.0.1"] });
    await approve("client-c1");
    await approve("serving-s1");
    const client = await eventually(async () => issued(await read("client-c1")), 15_000);
    const serving = await eventually(async () => issued(await read("serving-s1")), 15_000);
    expect(client?.subject).toContain("CN=alice");
    expect(Date.parse(client?.validTo ?? "") - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect(Date.parse(client?.validTo ?? "") - Date.now()).toBeGreaterThan(3_600_000 - 120_000);
    expect(client?.keyUsage).toContain("1.3.6.1.5.5.7.3.2");
    expect(serving?.keyUsage).toContain("1.3.6.1.5.5.7.3.1");
    expect(serving?.subjectAltName).toContain("DNS:n1.example");
    expect(serving?.subjectAltName).toContain("IP Address:10.0.0.1");
  });

  it("marks a request the kubelet client signer refuses as Failed (SignerValidationFailure)", async () => {
    await submit(admin, "bad-k1", "someone", ["devs"], signer("kube-apiserver-client-kubelet"), ["digital signature", "client auth"]);
    await approve("bad-k1");
    const failed = await eventually(async () => (await read("bad-k1"))?.status?.conditions?.find((c) => c.type === "Failed"), 15_000);
    expect(failed).toMatchObject({ reason: "SignerValidationFailure", message: "subject organization is not system:nodes" });
    expect((await read("bad-k1"))?.status?.certificate).toBeUndefined();
  });

  it("deletes a request whose issued certificate expired", async () => {
    cm.child.kill("SIGTERM");
    await cm.exited;
    // The CA's short life starts now, before the controller manager starts: it must outlast that start (seconds on a loaded machine), or the
    // certificate is issued already expired and deleted before it is read.
    const shortCa = await createSigningCA("short-signer", 15_000);
    writeFileSync(join(dir, "short.crt"), shortCa.certPem);
    writeFileSync(join(dir, "short.key"), shortCa.keyPem);
    const short = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--controllers", "csrsigning,csrcleaner", "--cluster-signing-cert-file", join(dir, "short.crt"), "--cluster-signing-key-file", join(dir, "short.key")]);
    expect(await eventually(async () => short.output().includes("controller manager running"), 30_000), short.output()).toBe(true);
    await submit(admin, "short-c1", "bob", ["devs"], signer("kube-apiserver-client"), ["client auth"]);
    await approve("short-c1");
    const cert = await eventually(async () => issued(await read("short-c1")), 10_000);
    expect(Date.parse(cert?.validTo ?? "")).toBeLessThanOrEqual(Date.parse(new X509Certificate(shortCa.certPem).validTo));
    expect(await eventually(async () => (await read("short-c1")) === undefined, 25_000, 200)).toBe(true);
    expect(short.logs().some((l) => l.msg === "controller action" && l.verb === "delete" && l.name === "short-c1")).toBe(true);
  }, 90_000);
});
