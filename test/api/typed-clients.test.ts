/**
 * The typed clients (shared/client/typed.ts) against real in-process replicas over HTTPS:
 *  - the guard: the client table has an entry for every resource discovery lists in both
 *    naming profiles (and nothing discovery lacks), with the same scope, verbs and
 *    subresources, so a new built-in kind without a typed client fails here;
 *  - one round trip per API group through its typed client: create, get, list, watch
 *    (the DELETED event) and delete; create only for the review groups;
 *  - subresources: scale, status, token, binding and eviction, and server-side apply with force;
 *  - each client offers only the verbs and subresources its kind serves.
 */
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import type { SecurityOptions } from "../../services/apiserver/server/security.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { BUILTIN_KIND_TABLE, typedClients, type KindClient, type KindDescriptor, type TypedClients, type TypedWatch } from "../../shared/client/typed.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const NS = "typed";
const LABEL = "typed-round-trip";
const TOKEN = "typed-clients-admin-token-0123456789";
const profiles = ["plat", "kubernetes"] as const;
const servers: Partial<Record<(typeof profiles)[number], { api: TestApiserver; client: HttpsObjectClient }>> = {};
let t: TypedClients;
let api: TestApiserver;
let dir: string;

/**
 * The security chain (token authentication, service account tokens, RBAC) serves the
 * reviews and the TokenRequest subresource; the client authenticates with a token of system:masters.
 */
async function securityOptions(id: string): Promise<SecurityOptions> {
  const key = generateKeyPairSync("ec", { namedCurve: "P-256", publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
  const file = async (name: string, text: string) => {
    await writeFile(join(dir, `${id}-${name}`), text);
    return join(dir, `${id}-${name}`);
  };
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = await file("tokens.csv", `${TOKEN},admin,1,system:masters\n`);
  authentication.serviceAccountSigningKeyFile = await file("sa.key", key.privateKey);
  authentication.serviceAccountKeyFiles = [await file("sa.pub", key.publicKey)];
  authentication.serviceAccountIssuers = ["https://issuer.typed.test"];
  return { authentication, authorization: { modes: ["RBAC"] } };
}

async function start(id: (typeof profiles)[number]): Promise<void> {
  const server = await startTestApiserver({ profileId: id, security: await securityOptions(id) });
  const pki = await ensurePki(server.dir, { profile: server.profile });
  const client = new HttpsObjectClient({ server: server.replica.url, ca: pki.ca.certPem, token: TOKEN, insecureSkipTlsVerify: false }, { profile: server.profile });
  servers[id] = { api: server, client };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "typed-clients-"));
  await Promise.all(profiles.map(start));
  const plat = servers.plat as { api: TestApiserver; client: HttpsObjectClient };
  api = plat.api;
  t = typedClients(plat.client, api.profile);
  await t.namespaces.create({ metadata: { name: NS } });
});
afterAll(async () => {
  await Promise.all(
    Object.values(servers).map(async (s) => {
      s.client.close();
      await s.api.close();
    }),
  );
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface DiscoveredResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
}

/** `group/version/resource` → what discovery says of it, subresources gathered under their resource. */
async function discovered(client: HttpsObjectClient): Promise<Map<string, { namespaced: boolean; kind: string; verbs: string[]; subresources: string[] }>> {
  const versions: string[] = ["/api/v1"];
  const groups = (await client.getPath("/apis")) as { groups: Array<{ versions: Array<{ groupVersion: string }> }> };
  for (const g of groups.groups) for (const v of g.versions) versions.push(`/apis/${v.groupVersion}`);
  const out = new Map<string, { namespaced: boolean; kind: string; verbs: string[]; subresources: string[] }>();
  for (const path of versions) {
    const gv = path.replace(/^\/apis?\//, "");
    const list = (await client.getPath(path)) as { resources: DiscoveredResource[] };
    for (const r of list.resources.filter((x) => !x.name.includes("/"))) out.set(`${gv}/${r.name}`, { namespaced: r.namespaced, kind: r.kind, verbs: [...r.verbs].sort(), subresources: [] });
    for (const r of list.resources.filter((x) => x.name.includes("/"))) {
      const [resource, sub] = r.name.split("/");
      out.get(`${gv}/${resource}`)?.subresources.push(sub);
    }
  }
  for (const entry of out.values()) entry.subresources.sort();
  return out;
}

describe("the typed client table covers every built-in resource", () => {
  it.each(profiles)("%s profile: discovery and the table list the same resources, scopes, verbs and subresources", async (id) => {
    const { api: server, client } = servers[id] as { api: TestApiserver; client: HttpsObjectClient };
    const fromDiscovery = await discovered(client);
    const fromTable = new Map<string, { namespaced: boolean; kind: string; verbs: string[]; subresources: string[] }>();
    for (const [group, versions] of Object.entries(BUILTIN_KIND_TABLE)) {
      for (const [version, entries] of Object.entries(versions)) {
        for (const d of Object.values(entries as Record<string, KindDescriptor>)) {
          fromTable.set(`${server.profile.apiVersion(group as keyof typeof BUILTIN_KIND_TABLE, version)}/${d.resource}`, { namespaced: d.namespaced, kind: d.kind, verbs: [...d.verbs].sort(), subresources: [...d.subresources].sort() });
        }
      }
    }
    expect(fromDiscovery.size).toBeGreaterThanOrEqual(59);
    expect([...fromDiscovery.keys()].filter((k) => !fromTable.has(k)), "served resources without a typed client").toEqual([]);
    expect([...fromTable.keys()].filter((k) => !fromDiscovery.has(k)), "typed clients of resources the server does not serve").toEqual([]);
    for (const [key, entry] of fromDiscovery) expect(fromTable.get(key), key).toEqual(entry);
  });
});

type RoundTripClient<O extends object> = Pick<KindClient<O>, "create" | "get" | "list" | "watch" | "delete" | "descriptor">;

async function nextEvent<O>(watch: TypedWatch<O>, type: string, name: string, timeoutMs = 10_000): Promise<O> {
  const timer = setTimeout(() => watch.stop(), timeoutMs);
  try {
    for await (const ev of watch) {
      if (ev.type === type && (ev.object as { metadata?: { name?: string } }).metadata?.name === name) return ev.object as O;
    }
    throw new Error(`no ${type} event for ${name} within ${timeoutMs} ms`);
  } finally {
    clearTimeout(timer);
    watch.stop();
  }
}

/** create → get → list (by label) → watch from the list's version → delete → the DELETED event. */
async function roundTrip<O extends object>(client: RoundTripClient<O>, obj: NoInfer<O>, name: string): Promise<void> {
  const namespace = client.descriptor.namespaced ? NS : undefined;
  const meta = (obj as { metadata?: Record<string, unknown> }).metadata ?? {};
  const input = { ...obj, metadata: { ...meta, name, namespace, labels: { [LABEL]: name } } } as O;
  const created = (await client.create(input)) as O & { apiVersion?: string; kind?: string; metadata?: { uid?: string } };
  expect(created.kind).toBe(client.descriptor.kind);
  expect(created.metadata?.uid).toBeTruthy();
  const got = (await client.get(name, namespace)) as { metadata?: { uid?: string } };
  expect(got.metadata?.uid).toBe(created.metadata?.uid);
  const list = await client.list({ namespace, labelSelector: `${LABEL}=${name}` });
  expect(list.items.map((i) => (i as { metadata?: { name?: string } }).metadata?.name)).toEqual([name]);
  const watch = client.watch({ namespace, labelSelector: `${LABEL}=${name}`, resourceVersion: list.metadata.resourceVersion });
  const deleted = nextEvent(watch, "DELETED", name);
  await client.delete(name, { namespace, gracePeriodSeconds: 0 });
  expect(((await deleted) as { metadata?: { uid?: string } }).metadata?.uid).toBe(created.metadata?.uid);
}

describe("one HTTPS round trip per API group through its typed client", () => {
  const samples = join(import.meta.dirname, "..", "..", "shared", "api", "samples");
  const groupCases: Array<[string, () => Promise<void>]> = [
    ["core", () => roundTrip(t.core.v1.configMaps, { data: { k: "v" } }, "cm")],
    ["apps", () => roundTrip(t.apps.v1.controllerRevisions, { revision: 1, data: { note: "x" } }, "rev")],
    ["batch", () => roundTrip(t.batch.v1.cronJobs, { spec: { schedule: "*/5 * * * *", suspend: true, jobTemplate: { spec: { template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "c", image: "busybox" }] } } } } } }, "cron")],
    ["autoscaling", () => roundTrip(t.autoscaling.v2.horizontalPodAutoscalers, { spec: { scaleTargetRef: { apiVersion: api.profile.apiVersion("apps", "v1"), kind: "Deployment", name: "web" }, maxReplicas: 3 } }, "hpa")],
    ["policy", () => roundTrip(t.podDisruptionBudgets, { spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } } }, "pdb")],
    ["coordination", () => roundTrip(t.leases, { spec: { holderIdentity: "me", leaseDurationSeconds: 15 } }, "lease")],
    [
      "events",
      () =>
        roundTrip(
          t.events.v1.events,
          { eventTime: "2026-01-02T03:04:05.000000Z", reportingController: "example.com/typed", reportingInstance: "typed-1", action: "Test", reason: "Tested", type: "Normal", regarding: { kind: "ConfigMap", namespace: NS, name: "cm" } },
          "ev",
        ),
    ],
    ["rbac", () => roundTrip(t.roles, { rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] }, "role")],
    ["networking", () => roundTrip(t.ingressClasses, { spec: { controller: "example.com/ingress" } }, "ic")],
    ["discovery", () => roundTrip(t.endpointSlices, { addressType: "IPv4", endpoints: [{ addresses: ["10.0.0.1"] }] }, "slice")],
    ["storage", () => roundTrip(t.storageClasses, { provisioner: "example.com/disk" }, "sc")],
    ["scheduling", () => roundTrip(t.priorityClasses, { value: 10 }, "pc")],
    ["node", () => roundTrip(t.runtimeClasses, { handler: "runc" }, "rc")],
    [
      "certificates",
      () => {
        const csr = parse(readFileSync(join(samples, "certificates-v1", "certificatesigningrequest.yaml"), "utf8")) as { spec: { request: string } };
        return roundTrip(t.certificateSigningRequests, { spec: { request: csr.spec.request, signerName: "example.com/signer", usages: ["client auth"] } }, "csr");
      },
    ],
    ["admissionregistration", () => roundTrip(t.mutatingWebhookConfigurations, {}, "mwc")],
    [
      "apiextensions",
      () =>
        roundTrip(
          t.customResourceDefinitions,
          {
            spec: {
              group: "typed.example.com",
              scope: "Namespaced",
              names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
              versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: { size: { type: "integer" } } } } } } }],
            },
          },
          "widgets.typed.example.com",
        ),
    ],
    ["apiregistration", () => roundTrip(t.apiServices, { spec: { group: "local.example.com", version: "v1", groupPriorityMinimum: 1000, versionPriority: 15 } }, "v1.local.example.com")],
    ["flowcontrol", () => roundTrip(t.priorityLevelConfigurations, { spec: { type: "Limited", limited: { nominalConcurrencyShares: 5, limitResponse: { type: "Reject" } } } }, "plc")],
  ];
  // Independent objects of independent groups: the round trips run side by side.
  it.concurrent.each(groupCases)("%s: create, get, list, watch, delete", async (_group, run) => {
    await run();
  });

  it("authentication and authorization: the reviews are create-only and answered", async () => {
    const me = await t.selfSubjectReviews.create({});
    expect(me.status?.userInfo?.username).toBeTruthy();
    const review = await t.selfSubjectAccessReviews.create({ spec: { resourceAttributes: { namespace: NS, verb: "get", resource: "pods" } } });
    expect(review.status?.allowed).toBe(true);
    expect(Object.keys(t.selfSubjectReviews).filter((k) => typeof (t.selfSubjectReviews as Record<string, unknown>)[k] === "function")).toEqual(["create"]);
  });

  it("covers every group of the table", () => {
    const covered = new Set([...groupCases.map(([g]) => g), "authentication", "authorization"]);
    expect(Object.keys(BUILTIN_KIND_TABLE).filter((g) => !covered.has(g))).toEqual([]);
  });
});

describe("subresources through the typed clients", () => {
  const template = { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "busybox" }] } };

  it("scale and status of a Deployment; apply with force takes a field over", async () => {
    const deployments = t.apps.v1.deployments;
    await deployments.create({ metadata: { name: "web", namespace: NS }, spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template } });
    const scale = await deployments.getScale("web", NS);
    expect(scale).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 1 } });
    const rescaled = await deployments.updateScale("web", { ...scale, spec: { replicas: 3 } });
    expect(rescaled.spec?.replicas).toBe(3);
    expect((await deployments.get("web", NS)).spec?.replicas).toBe(3);
    const patched = await deployments.patchStatus("web", "merge", { status: { observedGeneration: 5 } }, { namespace: NS });
    expect(patched.status?.observedGeneration).toBe(5);
    expect((await deployments.getStatus("web", NS)).status?.observedGeneration).toBe(5);
    const applied = { metadata: { name: "web", namespace: NS }, spec: { replicas: 4, selector: { matchLabels: { app: "web" } }, template } };
    await expect(deployments.apply(applied, { fieldManager: "other" })).rejects.toMatchObject({ code: 409, reason: "Conflict" });
    expect((await deployments.apply(applied, { fieldManager: "other", force: true })).spec?.replicas).toBe(4);
  });

  it("a service account token, a pod's binding and its eviction", async () => {
    await t.serviceAccounts.create({ metadata: { name: "robot", namespace: NS } });
    const token = await t.serviceAccounts.createToken("robot", { spec: { audiences: ["api"], expirationSeconds: 600 } }, { namespace: NS });
    expect(token.kind).toBe("TokenRequest");
    expect(token.status?.token.split(".")).toHaveLength(3);
    await t.pods.create({ metadata: { name: "p", namespace: NS }, spec: template.spec });
    expect(await t.pods.bind("p", { target: { kind: "Node", name: "node-1" } }, { namespace: NS })).toMatchObject({ status: "Success" });
    expect((await t.pods.get("p", NS)).spec?.nodeName).toBe("node-1");
    expect(await t.pods.evict("p", { namespace: NS, deleteOptions: { gracePeriodSeconds: 0 } })).toMatchObject({ kind: "Status", status: "Success" });
    await expect(t.pods.get("p", NS)).rejects.toMatchObject({ code: 404 });
  });

  it("a CSR's approval, a namespace's finalize, and the log of a pod on no node", async () => {
    const sample = parse(readFileSync(join(import.meta.dirname, "..", "..", "shared", "api", "samples", "certificates-v1", "certificatesigningrequest.yaml"), "utf8")) as { spec: { request: string } };
    const csr = await t.certificateSigningRequests.create({ metadata: { name: "approve-me" }, spec: { request: sample.spec.request, signerName: "example.com/signer", usages: ["client auth"] } });
    const approved = await t.certificateSigningRequests.updateApproval({ ...csr, status: { conditions: [{ type: "Approved", status: "True", reason: "Typed", message: "approved by the typed client" }] } });
    expect(approved.status?.conditions?.map((c) => [c.type, c.status])).toEqual([["Approved", "True"]]);
    const ns = await t.namespaces.create({ metadata: { name: "typed-finalize" } });
    expect(ns.spec?.finalizers?.length).toBeGreaterThan(0);
    const finalized = await t.namespaces.finalize({ ...ns, spec: { finalizers: [] } });
    expect(finalized.spec?.finalizers ?? []).toEqual([]);
    await t.pods.create({ metadata: { name: "unscheduled", namespace: NS }, spec: { containers: [{ name: "c", image: "busybox" }] } });
    // A pod on no node has an empty log (as on the platform); the options reach the server: an unknown container is a 400.
    expect(await t.pods.log("unscheduled", { namespace: NS, container: "c", tailLines: 10 })).toBe("");
    await expect(t.pods.log("unscheduled", { namespace: NS, container: "nope" })).rejects.toMatchObject({ code: 400, message: expect.stringContaining("nope") });
  });

  it("a client offers only what its kind serves", () => {
    const methods = (c: object) => Object.keys(c).filter((k) => typeof (c as Record<string, unknown>)[k] === "function").sort();
    expect(methods(t.componentStatuses)).toEqual(["get", "list"]);
    expect(methods(t.configMaps)).toEqual(["apply", "create", "delete", "deleteCollection", "get", "list", "patch", "update", "watch"]);
    expect(methods(t.apps.v1.deployments)).toEqual(expect.arrayContaining(["getScale", "updateScale", "patchScale", "getStatus", "updateStatus", "patchStatus"]));
    expect(methods(t.pods)).toEqual(expect.arrayContaining(["bind", "evict", "log", "proxyGet", "updateEphemeralContainers", "updateResize"]));
    expect(methods(t.pods)).not.toContain("getScale");
    // The types agree: a call the kind does not serve does not compile.
    // @ts-expect-error ConfigMaps have no scale subresource
    expect(t.configMaps.getScale).toBeUndefined();
    // @ts-expect-error ComponentStatuses are read-only
    expect(t.componentStatuses.create).toBeUndefined();
  });
});
