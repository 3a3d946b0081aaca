/**
 * The ClusterRole aggregation controller over HTTPS against a replica with RBAC: the
 * API server itself no longer aggregates (the default `view` has no rules until the
 * controller runs); with the controller, the default admin/edit/view roles carry the
 * rules of the roles labelled `aggregate-to-*` through the profile's labels (view ⊂ edit
 * ⊂ admin), a custom aggregated role follows contributors as they appear, change labels
 * and go, and a user bound to an aggregated role gets exactly what it aggregates.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { runControllers, type RunningControllers } from "../../services/controller-manager/controllers.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { HttpsClient } from "../support/https-client.ts";
import { eventually } from "./support.ts";

type Rule = { verbs: string[]; apiGroups?: string[]; resources?: string[] };
let api: TestApiserver;
let admin: HttpsClient;
let viewer: HttpsClient;
let dir: string;
let controllers: RunningControllers | undefined;
let client: HttpsObjectClient | undefined;
let rbacPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cm-aggregation-"));
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  writeFileSync(authentication.tokenAuthFile, "admin-token-aggregation,admin,0,system:masters\nviewer-token-aggregation,viewer,1\n");
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
  admin = new HttpsClient(api.replica.url, { ca: api.ca, token: "admin-token-aggregation" });
  viewer = new HttpsClient(api.replica.url, { ca: api.ca, token: "viewer-token-aggregation" });
  rbacPath = `/apis/${api.profile.group("rbac")}/v1`;
});
afterAll(async () => {
  controllers?.stop();
  client?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rulesOf(name: string): Promise<Rule[]> {
  const r = await admin.get(`${rbacPath}/clusterroles/${name}`);
  return r.status === 200 ? (r.json<{ rules?: Rule[] }>().rules ?? []) : [];
}
const grants = (rules: Rule[], verb: string, resource: string) => rules.some((r) => r.verbs.includes(verb) && (r.resources ?? []).includes(resource));
async function write(method: "post" | "put", path: string, body: unknown): Promise<void> {
  const r = await admin[method](path, body);
  expect([200, 201], r.text).toContain(r.status);
}

describe("clusterrole-aggregation-controller", () => {
  it("the API server alone leaves aggregated roles empty", async () => {
    expect(await rulesOf("view")).toEqual([]);
    expect(await rulesOf("admin")).toEqual([]);
  });

  it("fills the default admin, edit and view roles from the aggregate-to-* roles", async () => {
    client = new HttpsObjectClient({ server: api.replica.url, ca: api.ca, token: "admin-token-aggregation", insecureSkipTlsVerify: false });
    controllers = await runControllers(client, { controllers: ["clusterrole-aggregation"], namespaceFinalizer: api.profile.namespaceFinalizer, profile: api.profile });
    expect(controllers.names).toEqual(["clusterrole-aggregation-controller"]);
    const filled = await eventually(async () => {
      const [view, edit, adminRules] = [await rulesOf("view"), await rulesOf("edit"), await rulesOf("admin")];
      return grants(view, "list", "pods") && grants(edit, "create", "pods") && grants(adminRules, "create", "rolebindings") ? { view, edit, adminRules } : undefined;
    });
    expect(filled).toBeDefined();
    const { view, edit, adminRules } = filled!;
    expect(grants(view, "create", "pods")).toBe(false);
    expect(grants(edit, "list", "pods")).toBe(true);
    expect(grants(adminRules, "create", "pods")).toBe(true);
    // The contributing labels come from the profile.
    const contributor = (await admin.get(`${rbacPath}/clusterroles/system:aggregate-to-view`)).json<{ metadata: { labels: Record<string, string> } }>();
    expect(contributor.metadata.labels[api.profile.labels.aggregateToView]).toBe("true");
  });

  it("a custom aggregated role follows its contributors and grants through a binding", async () => {
    const key = `${api.profile.group("rbac")}/aggregate-to-monitoring`;
    await write("post", `${rbacPath}/clusterroles`, { kind: "ClusterRole", apiVersion: `${api.profile.group("rbac")}/v1`, metadata: { name: "monitoring" }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [key]: "true" } }] } });
    await write("post", `${rbacPath}/clusterroles`, { kind: "ClusterRole", apiVersion: `${api.profile.group("rbac")}/v1`, metadata: { name: "monitoring-endpoints", labels: { [key]: "true" } }, rules: [{ apiGroups: [""], resources: ["endpoints"], verbs: ["get", "list"] }] });
    expect(await eventually(async () => (await rulesOf("monitoring")).length === 1)).toBe(true);
    expect(await rulesOf("monitoring")).toEqual([{ apiGroups: [""], resources: ["endpoints"], verbs: ["get", "list"] }]);

    await write("post", `${rbacPath}/clusterroles`, { kind: "ClusterRole", apiVersion: `${api.profile.group("rbac")}/v1`, metadata: { name: "monitoring-pods", labels: { [key]: "true" } }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }] });
    expect(await eventually(async () => (await rulesOf("monitoring")).length === 2)).toBe(true);

    await write("post", `${rbacPath}/clusterrolebindings`, {
      kind: "ClusterRoleBinding",
      apiVersion: `${api.profile.group("rbac")}/v1`,
      metadata: { name: "viewer-monitoring" },
      subjects: [{ kind: "User", name: "viewer", apiGroup: api.profile.group("rbac") }],
      roleRef: { kind: "ClusterRole", name: "monitoring", apiGroup: api.profile.group("rbac") },
    });
    expect(await eventually(async () => (await viewer.get("/api/v1/pods")).status === 200)).toBe(true);

    // A label change takes a contributor out; its deletion too.
    const pods = (await admin.get(`${rbacPath}/clusterroles/monitoring-pods`)).json<{ metadata: { labels: Record<string, string> } }>();
    pods.metadata.labels = { other: "x" };
    await write("put", `${rbacPath}/clusterroles/monitoring-pods`, pods);
    expect(await eventually(async () => (await rulesOf("monitoring")).length === 1)).toBe(true);
    expect(await eventually(async () => (await viewer.get("/api/v1/pods")).status === 403)).toBe(true);
    expect((await admin.delete(`${rbacPath}/clusterroles/monitoring-endpoints`)).status).toBe(200);
    expect(await eventually(async () => (await rulesOf("monitoring")).length === 0)).toBe(true);
  });

  it("direct changes to an aggregated role's rules are stomped", async () => {
    const view = (await admin.get(`${rbacPath}/clusterroles/view`)).json<{ rules: Rule[] }>();
    const before = view.rules.length;
    view.rules = [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }];
    await write("put", `${rbacPath}/clusterroles/view`, view);
    expect(await eventually(async () => (await rulesOf("view")).length === before)).toBe(true);
    expect(grants(await rulesOf("view"), "*", "*")).toBe(false);
  });
});
