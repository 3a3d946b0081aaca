/**
 * StorageObjectInUseProtection, PersistentVolumeClaimResize, the certificate
 * plugins and the default-off AlwaysPullImages and PodNodeSelector over HTTPS
 * (enabled by flag with their configuration file), as are EventRateLimit and
 * OwnerReferencesPermissionEnforcement (allowed for an administrator).
 */
import { webcrypto } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "../../services/apiserver/server/certs.ts"; // installs the metadata polyfill the X.509 library needs
import { getProfile } from "../../shared/platform/index.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const profile = getProfile("kubernetes");
let api: TestApiserver;
let dir: string;
type Obj = Record<string, unknown>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "admission-storage-"));
  const configFile = join(dir, "admission.json");
  await writeFile(
    configFile,
    JSON.stringify({
      apiVersion: `${profile.group("apiserverConfig")}/v1`,
      kind: "AdmissionConfiguration",
      plugins: [
        { name: "PodNodeSelector", configuration: { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "tier=general", fenced: "zone=a" } } },
        { name: "EventRateLimit", configuration: { kind: "Configuration", limits: [{ type: "Namespace", qps: 1, burst: 3 }] } },
      ],
    }),
  );
  api = await startTestApiserver({ profileId: "kubernetes", admission: { enable: ["AlwaysPullImages", "PodNodeSelector", "EventRateLimit", "OwnerReferencesPermissionEnforcement"], disable: [], configFile } });
  for (const [name, annotations] of [
    ["vols", {}],
    ["pinned", { [profile.admission.nodeSelectorAnnotation]: "disk=ssd" }],
    ["fenced", { [profile.admission.nodeSelectorAnnotation]: "" }],
  ] as const) {
    const r = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name, annotations } });
    expect(r.status, r.text).toBe(201);
  }
});
afterAll(async () => {
  await api?.close();
  await rm(dir, { recursive: true, force: true });
});

const claim = (name: string, storage: string, storageClassName?: string) => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage } }, ...(storageClassName !== undefined ? { storageClassName } : {}) },
});

async function bind(name: string): Promise<Obj> {
  const cur = (await api.admin.get(`/api/v1/namespaces/vols/persistentvolumeclaims/${name}`)).json<Obj>();
  const r = await api.admin.put(`/api/v1/namespaces/vols/persistentvolumeclaims/${name}/status`, { ...cur, status: { phase: "Bound" } });
  expect(r.status, r.text).toBe(200);
  return r.json<Obj>();
}

async function grow(o: Obj, storage: string) {
  const next = structuredClone(o) as { spec: { resources: { requests: Obj } } };
  next.spec.resources.requests.storage = storage;
  return api.admin.put(`/api/v1/namespaces/vols/persistentvolumeclaims/${String((o.metadata as Obj).name)}`, next);
}

describe("storage admission", () => {
  it("adds the protection finalizers to claims and volumes", async () => {
    const c = await api.admin.post("/api/v1/namespaces/vols/persistentvolumeclaims", claim("protected", "1Gi", ""));
    expect(c.status, c.text).toBe(201);
    expect(c.json<{ metadata: { finalizers: string[] } }>().metadata.finalizers).toEqual([profile.admission.pvcProtectionFinalizer]);
    const pv = await api.admin.post("/api/v1/persistentvolumes", {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv1" },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv1" } },
    });
    expect(pv.status, pv.text).toBe(201);
    expect(pv.json<{ metadata: { finalizers: string[] } }>().metadata.finalizers).toEqual([profile.admission.pvProtectionFinalizer]);
  });

  it("lets only bound claims of expandable classes grow", async () => {
    const sg = profile.group("storage");
    for (const [name, allow] of [["fixed", false], ["elastic", true]] as const) {
      const sc = await api.admin.post(`/apis/${sg}/v1/storageclasses`, { apiVersion: `${sg}/v1`, kind: "StorageClass", metadata: { name }, provisioner: "example/disk", allowVolumeExpansion: allow });
      expect(sc.status, sc.text).toBe(201);
    }
    const a = await api.admin.post("/api/v1/namespaces/vols/persistentvolumeclaims", claim("a", "1Gi", "fixed"));
    expect(a.status, a.text).toBe(201);
    const unbound = await grow(a.json<Obj>(), "2Gi");
    expect(unbound.status).toBe(403);
    expect(unbound.json()).toMatchObject({ reason: "Forbidden", message: 'persistentvolumeclaims "a" is forbidden: Only bound persistent volume claims can be expanded' });
    const fixed = await grow(await bind("a"), "2Gi");
    expect(fixed.status).toBe(403);
    expect(fixed.json<{ message: string }>().message).toBe(
      'persistentvolumeclaims "a" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    const b = await api.admin.post("/api/v1/namespaces/vols/persistentvolumeclaims", claim("b", "1Gi", "elastic"));
    expect(b.status, b.text).toBe(201);
    const grown = await grow(await bind("b"), "2Gi");
    expect(grown.status, grown.text).toBe(200);
  });
});

async function csrPem(subject: string): Promise<string> {
  // certs.ts has set the library's crypto provider.
  const { Pkcs10CertificateRequestGenerator } = await import("@peculiar/x509");
  type Params = Parameters<typeof Pkcs10CertificateRequestGenerator.create>[0];
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const csr = await Pkcs10CertificateRequestGenerator.create({ name: subject, keys: keys as Params["keys"], signingAlgorithm: alg });
  return Buffer.from(csr.toString("pem")).toString("base64");
}

describe("certificate admission", () => {
  const cg = profile.group("certificates");
  const csr = (name: string, request: string, signerName: string) => ({
    apiVersion: `${cg}/v1`,
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: { request, signerName, usages: ["client auth"] },
  });

  it("refuses apiserver-client requests for the system:masters group", async () => {
    const signer = `${profile.admission.signerPrefix}kube-apiserver-client`;
    const masters = await api.admin.post(`/apis/${cg}/v1/certificatesigningrequests`, csr("masters", await csrPem("CN=root, O=system:masters"), signer));
    expect(masters.status).toBe(403);
    expect(masters.json()).toMatchObject({
      reason: "Forbidden",
      message: `certificatesigningrequests.${cg} "masters" is forbidden: use of ${signer} signer with system:masters group is not allowed`,
    });
    const dev = await api.admin.post(`/apis/${cg}/v1/certificatesigningrequests`, csr("dev", await csrPem("CN=jane, O=dev"), signer));
    expect(dev.status, dev.text).toBe(201);
    const other = await api.admin.post(`/apis/${cg}/v1/certificatesigningrequests`, csr("other", await csrPem("CN=x, O=system:masters"), "example.com/custom"));
    expect(other.status, other.text).toBe(201);
  });
});

describe("default-off pod plugins enabled by flag", () => {
  const pod = (name: string, spec: Obj = {}) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "app", image: "busybox", imagePullPolicy: "IfNotPresent" }], ...spec } });

  it("AlwaysPullImages sets Always on every container", async () => {
    const r = await api.admin.post("/api/v1/namespaces/vols/pods", pod("pull", { initContainers: [{ name: "init", image: "busybox", imagePullPolicy: "Never" }] }));
    expect(r.status, r.text).toBe(201);
    const spec = r.json<{ spec: { containers: Obj[]; initContainers: Obj[] } }>().spec;
    expect(spec.containers[0].imagePullPolicy).toBe("Always");
    expect(spec.initContainers[0].imagePullPolicy).toBe("Always");
  });

  it("PodNodeSelector merges the namespace's selector, the cluster default, and enforces the whitelist", async () => {
    const pinned = await api.admin.post("/api/v1/namespaces/pinned/pods", pod("p", { nodeSelector: { gpu: "yes" } }));
    expect(pinned.status, pinned.text).toBe(201);
    expect(pinned.json<{ spec: Obj }>().spec.nodeSelector).toEqual({ disk: "ssd", gpu: "yes" });
    const conflict = await api.admin.post("/api/v1/namespaces/pinned/pods", pod("q", { nodeSelector: { disk: "hdd" } }));
    expect(conflict.status).toBe(403);
    expect(conflict.json<{ message: string }>().message).toBe('pods "q" is forbidden: pod node label selector conflicts with its namespace node label selector');
    const general = await api.admin.post("/api/v1/namespaces/vols/pods", pod("g"));
    expect(general.json<{ spec: Obj }>().spec.nodeSelector).toEqual({ tier: "general" });
    const outside = await api.admin.post("/api/v1/namespaces/fenced/pods", pod("f", { nodeSelector: { zone: "b" } }));
    expect(outside.status).toBe(403);
    expect(outside.json<{ message: string }>().message).toBe('pods "f" is forbidden: pod node label selector labels conflict with its namespace whitelist');
    const inside = await api.admin.post("/api/v1/namespaces/fenced/pods", pod("h", { nodeSelector: { zone: "a" } }));
    expect(inside.status, inside.text).toBe(201);
  });
});

describe("default-off EventRateLimit and OwnerReferencesPermissionEnforcement", () => {
  /** The involved object lives in the event's namespace, as Event validation requires. */
  const event = (name: string, namespace = "fenced") => ({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name },
    involvedObject: { kind: "Pod", name: "p", namespace },
    reason: "Test",
    message: "m",
    source: { component: "test" },
  });

  it("answers 429 once a namespace's burst is used up; dry runs are not counted", async () => {
    const dry = await api.admin.post("/api/v1/namespaces/fenced/events?dryRun=All", event("dry"));
    expect(dry.status, dry.text).toBe(201);
    // Concurrent, so that the one-per-second refill hardly matters: the burst of 3 is what is admitted.
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => api.admin.post("/api/v1/namespaces/fenced/events", event(`e${i}`))));
    const admitted = results.filter((r) => r.status === 201).length;
    expect(admitted).toBeGreaterThanOrEqual(3);
    expect(admitted).toBeLessThanOrEqual(4);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.length).toBe(8 - admitted);
    for (const r of refused) {
      expect(r.json()).toMatchObject({ kind: "Status", code: 429, reason: "TooManyRequests", message: "Too many requests: limit reached on type Namespace for key fenced" });
    }
    const other = await api.admin.post("/api/v1/namespaces/pinned/events", event("elsewhere", "pinned"));
    expect(other.status, other.text).toBe(201);
  });

  it("lets an administrator set blocking owner references", async () => {
    const owner = await api.admin.post("/api/v1/namespaces/pinned/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner" } });
    const uid = owner.json<{ metadata: { uid: string } }>().metadata.uid;
    const dep = await api.admin.post("/api/v1/namespaces/pinned/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "dependent", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid, blockOwnerDeletion: true }] },
    });
    expect(dep.status, dep.text).toBe(201);
  });
});
