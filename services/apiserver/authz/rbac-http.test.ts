/**
 * RBAC through HTTPS against a real replica: namespace-limited users, default
 * policy reconciliation, and escalation prevention in the registry's admission
 * hook. ClusterRole aggregation is the controller manager's
 * (test/controllers/clusterrole-aggregation.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultClusterRoles } from "./default-policy.ts";
import { reconcile, rbacRegistries } from "./reconcile.ts";
import { eventually, profile, startAuthzServer, type AuthzServer } from "./testing/harness.ts";

const rbac = profile.group("rbac");
const rbacPath = `/apis/${rbac}/v1`;
const rbacVersion = profile.apiVersion("rbac", "v1");
const L = profile.labels;

let s: AuthzServer;

async function admin() {
  return s.as("admin", ["system:masters"]);
}

async function ok(p: Promise<{ status: number; text: string }>, want = [200, 201]): Promise<void> {
  const r = await p;
  if (!want.includes(r.status)) throw new Error(`unexpected ${r.status}: ${r.text}`);
}

beforeAll(async () => {
  s = await startAuthzServer({ modes: ["RBAC"] });
  await reconcile(rbacRegistries(s.replica.catalog, profile), profile);
  const a = await admin();
  for (const ns of ["team-a", "team-b"]) await ok(s.call(a, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }));
});

afterAll(async () => {
  await s?.close();
});

describe("RBAC over HTTPS", () => {
  it("without grants a user is forbidden with the platform's message", async () => {
    const nobody = await s.as("nobody");
    const r = await s.call(nobody, "GET", "/api/v1/namespaces/team-a/pods");
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe("Forbidden");
    expect(r.body.message).toBe('pods is forbidden: User "nobody" cannot list resource "pods" in API group "" in the namespace "team-a"');
  });

  it("system:masters bypasses RBAC", async () => {
    expect((await s.call(await admin(), "GET", "/api/v1/secrets")).status).toBe(200);
  });

  it("a RoleBinding limits a user to its namespace", async () => {
    const a = await admin();
    await ok(
      s.call(a, "POST", `${rbacPath}/namespaces/team-a/roles`, {
        apiVersion: rbacVersion,
        kind: "Role",
        metadata: { name: "pod-manager" },
        rules: [{ apiGroups: [""], resources: ["pods", "configmaps"], verbs: ["get", "list", "create"] }],
      }),
    );
    await ok(
      s.call(a, "POST", `${rbacPath}/namespaces/team-a/rolebindings`, {
        apiVersion: rbacVersion,
        kind: "RoleBinding",
        metadata: { name: "alice-pods" },
        subjects: [{ kind: "User", name: "alice", apiGroup: rbac }],
        roleRef: { kind: "Role", name: "pod-manager", apiGroup: rbac },
      }),
    );
    const alice = await s.as("alice", ["dev"]);
    await eventually(async () => (await s.call(alice, "GET", "/api/v1/namespaces/team-a/pods")).status === 200);
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c1" }, data: { a: "b" } };
    expect((await s.call(alice, "POST", "/api/v1/namespaces/team-a/configmaps", cm)).status).toBe(201);
    const other = await s.call(alice, "POST", "/api/v1/namespaces/team-b/configmaps", cm);
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team-b"');
    const cluster = await s.call(alice, "GET", "/api/v1/pods");
    expect(cluster.status).toBe(403);
    expect(cluster.body.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" at the cluster scope');
    expect((await s.call(alice, "DELETE", "/api/v1/namespaces/team-a/configmaps/c1")).status).toBe(403);
  });

  it("default discovery roles let any authenticated user read version and health paths", async () => {
    const someone = await s.as("someone");
    expect((await s.call(someone, "GET", "/healthz")).status).not.toBe(403);
    expect((await s.call(someone, "GET", "/metrics")).status).toBe(403);
  });

  it("cluster-status bound cluster-wide reads nodes, namespaces and health but no workload data, and is restored after deletion", async () => {
    const a = await admin();
    await ok(
      s.call(a, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "status-node" } }),
    );
    await ok(
      s.call(a, "POST", `${rbacPath}/clusterrolebindings`, {
        apiVersion: rbacVersion,
        kind: "ClusterRoleBinding",
        metadata: { name: "ops-cluster-status" },
        subjects: [{ kind: "Group", name: "ops", apiGroup: rbac }],
        roleRef: { kind: "ClusterRole", name: "cluster-status", apiGroup: rbac },
      }),
    );
    const ops = await s.as("olga", ["ops"]);
    await eventually(async () => (await s.call(ops, "GET", "/api/v1/nodes")).status === 200);
    expect((await s.call(ops, "GET", "/api/v1/nodes/status-node/status")).status).toBe(200);
    expect((await s.call(ops, "GET", "/api/v1/namespaces")).status).toBe(200);
    expect((await s.call(ops, "GET", "/readyz?verbose")).status).toBe(200);
    const secrets = await s.call(ops, "GET", "/api/v1/namespaces/team-a/secrets");
    expect(secrets.status).toBe(403);
    expect(secrets.body.message).toBe('secrets is forbidden: User "olga" cannot list resource "secrets" in API group "" in the namespace "team-a"');
    expect((await s.call(ops, "DELETE", "/api/v1/nodes/status-node")).status).toBe(403);
    expect((await s.call(ops, "GET", "/metrics")).status).toBe(403);

    await ok(s.call(a, "DELETE", `${rbacPath}/clusterroles/cluster-status`));
    await eventually(async () => (await s.call(ops, "GET", "/api/v1/nodes")).status === 403);
    const result = await reconcile(rbacRegistries(s.replica.catalog, profile), profile);
    expect(result.created).toContain("clusterrole/cluster-status");
    await eventually(async () => (await s.call(ops, "GET", "/api/v1/nodes")).status === 200);
  });

  it("restores deleted defaults and missing rules at start, but not with autoupdate off", async () => {
    const a = await admin();
    const regs = rbacRegistries(s.replica.catalog, profile);
    await ok(s.call(a, "DELETE", `${rbacPath}/clusterroles/system:basic-user`));
    await ok(s.call(a, "DELETE", `${rbacPath}/clusterrolebindings/system:discovery`));
    const discovery = (await s.call(a, "GET", `${rbacPath}/clusterroles/system:discovery`)).body as { rules: unknown[] };
    discovery.rules = [{ verbs: ["get"], nonResourceURLs: ["/version"] }];
    await ok(s.call(a, "PUT", `${rbacPath}/clusterroles/system:discovery`, discovery));
    const monitoring = (await s.call(a, "GET", `${rbacPath}/clusterroles/system:monitoring`)).body as {
      rules: unknown[];
      metadata: { annotations: Record<string, string> };
    };
    monitoring.rules = [{ verbs: ["get"], nonResourceURLs: ["/metrics"] }];
    monitoring.metadata.annotations[profile.annotations.rbacAutoupdate] = "false";
    await ok(s.call(a, "PUT", `${rbacPath}/clusterroles/system:monitoring`, monitoring));

    const result = await reconcile(regs, profile);
    expect(result.created).toContain("clusterrole/system:basic-user");
    expect(result.created).toContain("clusterrolebinding/system:discovery");
    expect(result.updated).toContain("clusterrole/system:discovery");
    expect(result.skipped).toContain("clusterrole/system:monitoring");

    const basic = await s.call(a, "GET", `${rbacPath}/clusterroles/system:basic-user`);
    expect(basic.status).toBe(200);
    expect((basic.body.metadata as { labels: Record<string, string> }).labels[L.bootstrapping]).toBe("rbac-defaults");
    const restored = (await s.call(a, "GET", `${rbacPath}/clusterroles/system:discovery`)).body as { rules: Array<{ nonResourceURLs?: string[] }> };
    const urls = restored.rules.flatMap((r) => r.nonResourceURLs ?? []);
    expect(urls).toContain("/apis/*");
    expect(urls).toContain("/version");
    const kept = (await s.call(a, "GET", `${rbacPath}/clusterroles/system:monitoring`)).body as { rules: unknown[] };
    expect(kept.rules).toEqual([{ verbs: ["get"], nonResourceURLs: ["/metrics"] }]);

    // A second run changes nothing.
    const again = await reconcile(regs, profile);
    expect(again.created).toEqual([]);
    expect(again.updated).toEqual([]);
    expect(defaultClusterRoles(profile).length).toBeGreaterThan(40);
  });

  describe("escalation prevention", () => {
    beforeAll(async () => {
      const a = await admin();
      await ok(
        s.call(a, "POST", `${rbacPath}/namespaces/team-a/roles`, {
          apiVersion: rbacVersion,
          kind: "Role",
          metadata: { name: "rbac-manager" },
          rules: [
            { apiGroups: [rbac], resources: ["roles", "rolebindings"], verbs: ["create", "update", "get"] },
            { apiGroups: [""], resources: ["pods"], verbs: ["get", "list"] },
          ],
        }),
      );
      await ok(
        s.call(a, "POST", `${rbacPath}/namespaces/team-a/rolebindings`, {
          apiVersion: rbacVersion,
          kind: "RoleBinding",
          metadata: { name: "dev-rbac" },
          subjects: [{ kind: "User", name: "dev", apiGroup: rbac }],
          roleRef: { kind: "Role", name: "rbac-manager", apiGroup: rbac },
        }),
      );
      const dev = await s.as("dev");
      await eventually(async () => (await s.call(dev, "GET", "/api/v1/namespaces/team-a/pods")).status === 200);
    });

    const role = (name: string, rules: unknown[]) => ({ apiVersion: rbacVersion, kind: "Role", metadata: { name }, rules });
    const bindingTo = (name: string, kind: string, roleName: string) => ({
      apiVersion: rbacVersion,
      kind: "RoleBinding",
      metadata: { name },
      subjects: [{ kind: "User", name: "friend", apiGroup: rbac }],
      roleRef: { kind, name: roleName, apiGroup: rbac },
    });

    it("allows creating a role with permissions the user holds", async () => {
      const dev = await s.as("dev");
      const r = await s.call(dev, "POST", `${rbacPath}/namespaces/team-a/roles`, role("pod-viewer", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]));
      expect(r.status).toBe(201);
    });

    it("forbids creating a role with permissions the user lacks", async () => {
      const dev = await s.as("dev");
      const r = await s.call(dev, "POST", `${rbacPath}/namespaces/team-a/roles`, role("secret-deleter", [{ apiGroups: [""], resources: ["secrets"], verbs: ["delete"] }]));
      expect(r.status).toBe(403);
      expect(r.body.message).toBe(
        `roles.${rbac} "secret-deleter" is forbidden: user "dev" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["delete"]}`,
      );
    });

    it("forbids updating a role to add permissions the user lacks", async () => {
      const dev = await s.as("dev");
      const current = (await s.call(dev, "GET", `${rbacPath}/namespaces/team-a/roles/pod-viewer`)).body as { rules: unknown[] };
      current.rules = [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "delete"] }];
      expect((await s.call(dev, "PUT", `${rbacPath}/namespaces/team-a/roles/pod-viewer`, current)).status).toBe(403);
    });

    it("allows binding a role whose permissions the user holds, forbids binding one it does not", async () => {
      const dev = await s.as("dev");
      expect((await s.call(dev, "POST", `${rbacPath}/namespaces/team-a/rolebindings`, bindingTo("friend-view", "Role", "pod-viewer"))).status).toBe(201);
      const r = await s.call(dev, "POST", `${rbacPath}/namespaces/team-a/rolebindings`, bindingTo("friend-admin", "ClusterRole", "cluster-admin"));
      expect(r.status).toBe(403);
      expect(r.body.message).toContain("is attempting to grant RBAC permissions not currently held");
    });

    it("PUT creates a missing Role or RoleBinding (create on update), still under the escalation checks", async () => {
      const dev = await s.as("dev");
      const created = await s.call(dev, "PUT", `${rbacPath}/namespaces/team-a/roles/put-viewer`, role("put-viewer", [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }]));
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ kind: "Role", metadata: { name: "put-viewer", namespace: "team-a" } });
      const again = await s.call(dev, "PUT", `${rbacPath}/namespaces/team-a/roles/put-viewer`, role("put-viewer", [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }]));
      expect(again.status, again.text).toBe(200);
      const escalating = await s.call(dev, "PUT", `${rbacPath}/namespaces/team-a/roles/put-deleter`, role("put-deleter", [{ apiGroups: [""], resources: ["secrets"], verbs: ["delete"] }]));
      expect(escalating.status, escalating.text).toBe(403);
      expect(escalating.body.message).toContain("is attempting to grant RBAC permissions not currently held");
      expect((await s.call(dev, "GET", `${rbacPath}/namespaces/team-a/roles/put-deleter`)).status).toBe(404);
      const binding = await s.call(dev, "PUT", `${rbacPath}/namespaces/team-a/rolebindings/put-friend`, bindingTo("put-friend", "Role", "put-viewer"));
      expect(binding.status, binding.text).toBe(201);
      const tooMuch = await s.call(dev, "PUT", `${rbacPath}/namespaces/team-a/rolebindings/put-admin`, bindingTo("put-admin", "ClusterRole", "cluster-admin"));
      expect(tooMuch.status, tooMuch.text).toBe(403);
    });

    it("PUT creates a missing ClusterRole and ClusterRoleBinding", async () => {
      const a = await admin();
      const cr = await s.call(a, "PUT", `${rbacPath}/clusterroles/put-cluster-viewer`, {
        apiVersion: rbacVersion,
        kind: "ClusterRole",
        metadata: { name: "put-cluster-viewer" },
        rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get"] }],
      });
      expect(cr.status, cr.text).toBe(201);
      const crb = await s.call(a, "PUT", `${rbacPath}/clusterrolebindings/put-cluster-viewer`, {
        apiVersion: rbacVersion,
        kind: "ClusterRoleBinding",
        metadata: { name: "put-cluster-viewer" },
        subjects: [{ kind: "User", name: "friend", apiGroup: rbac }],
        roleRef: { kind: "ClusterRole", name: "put-cluster-viewer", apiGroup: rbac },
      });
      expect(crb.status, crb.text).toBe(201);
    });

    it("the bind verb on a role allows binding it; escalate allows creating any role", async () => {
      const a = await admin();
      await ok(
        s.call(a, "POST", `${rbacPath}/namespaces/team-a/roles`, {
          apiVersion: rbacVersion,
          kind: "Role",
          metadata: { name: "binder" },
          rules: [
            { apiGroups: [rbac], resources: ["clusterroles"], verbs: ["bind"], resourceNames: ["edit"] },
            { apiGroups: [rbac], resources: ["roles"], verbs: ["escalate"] },
          ],
        }),
      );
      await ok(
        s.call(a, "POST", `${rbacPath}/namespaces/team-a/rolebindings`, {
          apiVersion: rbacVersion,
          kind: "RoleBinding",
          metadata: { name: "dev-binder" },
          subjects: [{ kind: "User", name: "dev", apiGroup: rbac }],
          roleRef: { kind: "Role", name: "binder", apiGroup: rbac },
        }),
      );
      const dev = await s.as("dev");
      await eventually(async () => (await s.call(dev, "POST", `${rbacPath}/namespaces/team-a/rolebindings`, bindingTo("friend-edit", "ClusterRole", "edit"))).status === 201);
      expect((await s.call(dev, "POST", `${rbacPath}/namespaces/team-a/rolebindings`, bindingTo("friend-admin2", "ClusterRole", "cluster-admin"))).status).toBe(403);
      expect((await s.call(dev, "POST", `${rbacPath}/namespaces/team-a/roles`, role("wide", [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }]))).status).toBe(201);
    });
  });
});
