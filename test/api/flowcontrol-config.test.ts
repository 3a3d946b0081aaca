/**
 * APF configuration over HTTPS (issue 25): flowcontrol.apiserver/v1 FlowSchemas and
 * PriorityLevelConfigurations of a replica (kubernetes profile): the platform's
 * bootstrap objects exist after start with the autoupdate-spec annotation; a deleted
 * mandatory object comes back; a changed suggested object is restored unless its
 * annotation says "false"; v1 defaulting (an explicit nominalConcurrencyShares 0 stays
 * 0); validation answers 422 with the platform's messages; the Dangling condition;
 * removed versions are not served; kubectl 1.34 prints both tables.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientCert, ensurePki, loadCA, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient } from "../support/clients.ts";

let api: TestApiserver;
let base: string;
let apiVersion: string;
let annotation: string;

type Obj = { metadata: { name: string; uid: string; generation?: number; resourceVersion?: string; annotations?: Record<string, string> }; spec: Record<string, unknown>; status?: { conditions?: Array<Record<string, string>> } };
type Status = { code: number; reason: string; message: string };

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
  apiVersion = api.profile.apiVersion("flowcontrol", "v1");
  base = `/apis/${apiVersion}`;
  annotation = api.profile.annotations.apfAutoupdateSpec;
}, 30_000);
afterAll(async () => {
  await api?.close();
});

async function get(plural: string, name: string): Promise<Obj | undefined> {
  const res = await api.admin.get(`${base}/${plural}/${name}`);
  return res.status === 200 ? res.json<Obj>() : undefined;
}

/** Polls until `check` holds for the object (or its absence); returns the last value. */
async function eventually(plural: string, name: string, check: (o: Obj | undefined) => boolean, timeoutMs = 10_000): Promise<Obj | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const o = await get(plural, name);
    if (check(o) || Date.now() > deadline) return o;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const names = (list: { items: Obj[] }) => list.items.map((i) => i.metadata.name).sort();

describe("bootstrap configuration", () => {
  it("has the mandatory and suggested objects of the platform after start, annotated autoupdate-spec true", async () => {
    const fs = (await api.admin.get(`${base}/flowschemas`)).json<{ items: Obj[] }>();
    expect(names(fs)).toEqual(
      ["catch-all", "endpoint-controller", "exempt", "global-default", "kube-controller-manager", "kube-scheduler", "kube-system-service-accounts", "probes", "service-accounts", "system-leader-election", "system-node-high", "system-nodes", "workload-leader-election"].sort(),
    );
    const pl = (await api.admin.get(`${base}/prioritylevelconfigurations`)).json<{ items: Obj[] }>();
    expect(names(pl)).toEqual(["catch-all", "exempt", "global-default", "leader-election", "node-high", "system", "workload-high", "workload-low"]);
    for (const o of [...fs.items, ...pl.items]) expect(o.metadata.annotations?.[annotation], o.metadata.name).toBe("true");
    expect((await get("prioritylevelconfigurations", "catch-all"))?.spec).toEqual({ type: "Limited", limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: "Reject" } } });
    expect((await get("prioritylevelconfigurations", "exempt"))?.spec).toEqual({ type: "Exempt", exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
    expect((await get("flowschemas", "probes"))?.spec).toMatchObject({ priorityLevelConfiguration: { name: "exempt" }, matchingPrecedence: 2 });
  });

  it("brings a deleted mandatory FlowSchema back", async () => {
    const before = await get("flowschemas", "catch-all");
    expect((await api.admin.delete(`${base}/flowschemas/catch-all`)).status).toBe(200);
    const after = await eventually("flowschemas", "catch-all", (o) => !!o && o.metadata.uid !== before?.metadata.uid);
    expect(after?.metadata.uid).toBeTruthy();
    expect(after?.metadata.uid).not.toBe(before?.metadata.uid);
    expect(after?.spec).toEqual(before?.spec);
  });

  it("two replicas racing to restore a deleted priority level: one creates it, the other's 409 is taken in its stride", async () => {
    const warnings: string[] = [];
    const second = await startSecondReplica(api, { log: (level, msg) => void (level === "warn" || level === "error" ? warnings.push(msg) : undefined) });
    try {
      const before = await get("prioritylevelconfigurations", "catch-all");
      expect((await second.admin.delete(`${base}/prioritylevelconfigurations/catch-all`)).status).toBe(200);
      const after = await eventually("prioritylevelconfigurations", "catch-all", (o) => !!o && o.metadata.uid !== before?.metadata.uid);
      expect(after?.spec).toEqual(before?.spec);
      const list = (await second.admin.get(`${base}/prioritylevelconfigurations`)).json<{ items: Obj[] }>();
      expect(list.items.filter((o) => o.metadata.name === "catch-all")).toHaveLength(1);
      expect(warnings.filter((w) => w.includes("APF"))).toEqual([]);
    } finally {
      second.admin.close();
      await second.replica.close();
    }
  });

  it("refuses a change of a mandatory spec, but lets the exempt level's spec.exempt be tuned", async () => {
    const fs = (await get("flowschemas", "exempt")) as Obj;
    const res = await api.admin.put(`${base}/flowschemas/exempt`, { ...fs, spec: { ...fs.spec, matchingPrecedence: 5 } });
    expect(res.status).toBe(422);
    expect(res.json<Status>().message).toContain("spec: Invalid value");
    expect(res.json<Status>().message).toContain("spec of 'exempt' must equal the fixed value");
    const pl = (await get("prioritylevelconfigurations", "exempt")) as Obj;
    const tuned = await api.admin.put(`${base}/prioritylevelconfigurations/exempt`, { ...pl, spec: { type: "Exempt", exempt: { nominalConcurrencyShares: 3, lendablePercent: 10 } } });
    expect(tuned.status, tuned.text).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect((await get("prioritylevelconfigurations", "exempt"))?.spec).toEqual({ type: "Exempt", exempt: { nominalConcurrencyShares: 3, lendablePercent: 10 } });
  });

  it("restores a changed suggested object, and leaves it alone once autoupdate-spec is false", async () => {
    const cur = (await get("prioritylevelconfigurations", "workload-low")) as Obj;
    const changed = structuredClone(cur);
    (changed.spec.limited as Record<string, unknown>).nominalConcurrencyShares = 7;
    expect((await api.admin.put(`${base}/prioritylevelconfigurations/workload-low`, changed)).status).toBe(200);
    const restored = await eventually("prioritylevelconfigurations", "workload-low", (o) => (o?.spec.limited as { nominalConcurrencyShares?: number })?.nominalConcurrencyShares === 100);
    expect(restored?.spec.limited).toMatchObject({ nominalConcurrencyShares: 100, lendablePercent: 90 });

    const pinned = structuredClone(restored as Obj);
    pinned.metadata.annotations = { ...pinned.metadata.annotations, [annotation]: "false" };
    (pinned.spec.limited as Record<string, unknown>).nominalConcurrencyShares = 7;
    expect((await api.admin.put(`${base}/prioritylevelconfigurations/workload-low`, pinned)).status).toBe(200);
    // Deleting another bootstrap object makes the ensurer run a pass now.
    await api.admin.delete(`${base}/flowschemas/probes`);
    await eventually("flowschemas", "probes", (o) => !!o);
    const kept = await get("prioritylevelconfigurations", "workload-low");
    expect(kept?.spec.limited).toMatchObject({ nominalConcurrencyShares: 7 });
    expect(kept?.metadata.annotations?.[annotation]).toBe("false");
  });
});

describe("defaulting and validation", () => {
  it("defaults v1 fields: an explicit nominalConcurrencyShares 0 stays 0, an unset one is 30, queuing 64/8/50, precedence 1000", async () => {
    const zero = await api.admin.post(`${base}/prioritylevelconfigurations`, { apiVersion, kind: "PriorityLevelConfiguration", metadata: { name: "jail" }, spec: { type: "Limited", limited: { nominalConcurrencyShares: 0, limitResponse: { type: "Queue", queuing: {} } } } });
    expect(zero.status, zero.text).toBe(201);
    expect(zero.json<Obj>().spec).toEqual({ type: "Limited", limited: { nominalConcurrencyShares: 0, lendablePercent: 0, limitResponse: { type: "Queue", queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } } });
    const unset = await api.admin.post(`${base}/prioritylevelconfigurations`, { apiVersion, kind: "PriorityLevelConfiguration", metadata: { name: "plain" }, spec: { type: "Limited", limited: { limitResponse: { type: "Reject" } } } });
    expect(unset.json<Obj>().spec.limited).toEqual({ nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: "Reject" } });
    const fs = await api.admin.post(`${base}/flowschemas`, { apiVersion, kind: "FlowSchema", metadata: { name: "team-a" }, spec: { priorityLevelConfiguration: { name: "plain" }, rules: [{ subjects: [{ kind: "Group", group: { name: "team-a" } }], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/version"] }] }] } });
    expect(fs.status, fs.text).toBe(201);
    expect(fs.json<Obj>().spec.matchingPrecedence).toBe(1000);
  });

  it.each([
    [
      "flowschemas",
      { metadata: { name: "bad-precedence" }, spec: { priorityLevelConfiguration: { name: "plain" }, matchingPrecedence: 1 } },
      "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
    ],
    [
      "flowschemas",
      { metadata: { name: "bad-rule" }, spec: { priorityLevelConfiguration: { name: "plain" }, rules: [{ subjects: [{ kind: "User", user: { name: "u" } }], resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] }] } },
      "spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace",
    ],
    [
      "prioritylevelconfigurations",
      { metadata: { name: "bad-hand" }, spec: { type: "Limited", limited: { limitResponse: { type: "Queue", queuing: { queues: 4, handSize: 5 } } } } },
      "spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)",
    ],
    [
      "prioritylevelconfigurations",
      { metadata: { name: "bad-lend" }, spec: { type: "Limited", limited: { lendablePercent: 101, limitResponse: { type: "Reject" } } } },
      "spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive",
    ],
  ])("%s: 422 %#", async (plural, body, message) => {
    const kind = plural === "flowschemas" ? "FlowSchema" : "PriorityLevelConfiguration";
    const res = await api.admin.post(`${base}/${plural}`, { apiVersion, kind, ...body });
    expect(res.status).toBe(422);
    expect(res.json<Status>().reason).toBe("Invalid");
    expect(res.json<Status>().message).toContain(`${kind}.${api.profile.group("flowcontrol")} "${body.metadata.name}" is invalid: `);
    expect(res.json<Status>().message).toContain(message);
  });

  it("does not serve the removed beta versions", async () => {
    for (const v of ["v1beta1", "v1beta2", "v1beta3"]) expect((await api.admin.get(`/apis/${api.profile.group("flowcontrol")}/${v}/flowschemas`)).status, v).toBe(404);
  });
});

describe("status", () => {
  it("marks a FlowSchema Dangling while its priority level does not exist", async () => {
    const created = await api.admin.post(`${base}/flowschemas`, { apiVersion, kind: "FlowSchema", metadata: { name: "orphan" }, spec: { priorityLevelConfiguration: { name: "later" }, matchingPrecedence: 3000, rules: [] } });
    expect(created.status, created.text).toBe(201);
    const dangling = await eventually("flowschemas", "orphan", (o) => !!o?.status?.conditions?.length);
    expect(dangling?.status?.conditions?.[0]).toMatchObject({ type: "Dangling", status: "True", reason: "NotFound", message: 'This FlowSchema references the PriorityLevelConfiguration object named "later" but there is no such object' });
    await api.admin.post(`${base}/prioritylevelconfigurations`, { apiVersion, kind: "PriorityLevelConfiguration", metadata: { name: "later" }, spec: { type: "Limited", limited: { limitResponse: { type: "Reject" } } } });
    const found = await eventually("flowschemas", "orphan", (o) => o?.status?.conditions?.[0]?.status === "False");
    expect(found?.status?.conditions?.[0]).toMatchObject({ type: "Dangling", status: "False", reason: "Found", message: 'This FlowSchema references the PriorityLevelConfiguration object named "later" and it exists' });
  });
});

describe("classification", () => {
  it("sends a user's requests to the FlowSchema a new object names, and back to global-default once it is gone", async () => {
    const pki = await ensurePki(api.dir, { profile: api.profile });
    const cert = await createClientCert(await loadCA(pki.ca.certPem, pki.ca.keyPem), { user: "carol", groups: ["reporters"] });
    const carol = api.admin.withIdentity({ cert: cert.certPem, key: cert.keyPem });
    const header = `x-${api.profile.displayName.toLowerCase()}-pf-flowschema-uid`;
    const uidOf = async (name: string) => (await get("flowschemas", name))?.metadata.uid;
    try {
      const path = "/api/v1/namespaces/default/configmaps";
      expect((await carol.get(path)).headers[header]).toBe(await uidOf("global-default"));
      const created = await api.admin.post(`${base}/flowschemas`, {
        apiVersion,
        kind: "FlowSchema",
        metadata: { name: "reporters" },
        spec: { priorityLevelConfiguration: { name: "workload-low" }, matchingPrecedence: 600, distinguisherMethod: { type: "ByUser" }, rules: [{ subjects: [{ kind: "Group", group: { name: "reporters" } }], resourceRules: [{ verbs: ["list"], apiGroups: [""], resources: ["configmaps"], namespaces: ["*"] }] }] },
      });
      expect(created.status, created.text).toBe(201);
      const uid = created.json<Obj>().metadata.uid;
      const deadline = Date.now() + 5000;
      let seen = (await carol.get(path)).headers[header];
      while (seen !== uid && Date.now() < deadline) seen = (await carol.get(path)).headers[header];
      expect(seen).toBe(uid);
      // A verb the rule does not list still falls to global-default.
      expect((await carol.get(`${path}/nope`)).headers[header]).toBe(await uidOf("global-default"));
      await api.admin.delete(`${base}/flowschemas/reporters`);
      const back = await uidOf("global-default");
      while (seen !== back && Date.now() < deadline + 5000) seen = (await carol.get(path)).headers[header];
      expect(seen).toBe(back);
    } finally {
      carol.close();
    }
  });
});

describe("kubectl 1.34", () => {
  it("prints the FlowSchema and PriorityLevelConfiguration tables", async () => {
    await eventually("flowschemas", "global-default", (o) => o?.status?.conditions?.[0]?.status === "False");
    const home = await mkdtemp(join(tmpdir(), "flowcontrol-"));
    try {
      const pki = await ensurePki(api.dir, { profile: api.profile });
      await writeAdminKubeconfig(join(home, "config"), { server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
      const env = { env: { HOME: home, KUBECONFIG: join(home, "config") } };
      const fs = await runClient(layerClients().kubectl, ["get", "flowschemas"], env);
      expect(fs.code, fs.stderr).toBe(0);
      const fsRows = fs.stdout.trim().split("\n").map((l) => l.split(/\s+/));
      expect(fsRows[0]).toEqual(["NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD", "AGE", "MISSINGPL"]);
      // Sorted as the platform's printer sorts them: by precedence, then name.
      const precedences = fsRows.slice(1).map((r) => Number(r[2]));
      expect(precedences).toEqual([...precedences].sort((a, b) => a - b));
      expect(fsRows.slice(1, 3).map((r) => r[0])).toEqual(["exempt", "probes"]);
      expect(fsRows.at(-1)?.[0]).toBe("catch-all");
      const global = fsRows.find((r) => r[0] === "global-default");
      expect([global?.[1], global?.[2], global?.[3], global?.[5]]).toEqual(["global-default", "9900", "ByUser", "False"]);
      expect(fsRows.find((r) => r[0] === "exempt")?.slice(0, 4)).toEqual(["exempt", "exempt", "1", "<none>"]);
      const pl = await runClient(layerClients().kubectl, ["get", "prioritylevelconfigurations"], env);
      expect(pl.code, pl.stderr).toBe(0);
      const plRows = pl.stdout.trim().split("\n").map((l) => l.split(/\s+/));
      expect(plRows[0]).toEqual(["NAME", "TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES", "HANDSIZE", "QUEUELENGTHLIMIT", "AGE"]);
      expect(plRows.find((r) => r[0] === "catch-all")?.slice(0, 6)).toEqual(["catch-all", "Limited", "5", "<none>", "<none>", "<none>"]);
      expect(plRows.find((r) => r[0] === "exempt")?.slice(0, 6)).toEqual(["exempt", "Exempt", "<none>", "<none>", "<none>", "<none>"]);
      expect(plRows.find((r) => r[0] === "workload-high")?.slice(0, 6)).toEqual(["workload-high", "Limited", "40", "128", "6", "50"]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
