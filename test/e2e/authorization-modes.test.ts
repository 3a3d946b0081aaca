/**
 * Authorization modes of the apiserver process (`services/embedded/main.ts`), chosen
 * by its flags: ABAC with a policy file, AlwaysDeny, the embedded default (Node,RBAC)
 * with the default `cluster-status` role, a Webhook authorizer named by an
 * AuthorizationConfiguration file (a local HTTPS service in this test), and the start
 * failure when both `--authorization-config` and `--authorization-mode` are given.
 * Users authenticate with bearer tokens from `--token-auth-file`; the admin client
 * certificate (group system:masters) is allowed by every chain.
 */
import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { startLocalHttps, webhookKubeconfig, type LocalHttps } from "../../services/apiserver/authz/testing/harness.ts";
import { call, TempDir, type HttpResult } from "../support/https-call.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const profile = getProfile("kubernetes");
const dir = new TempDir("e2e-authz-");
const tokens = dir.write(
  "tokens.csv",
  ["alice-token,alice,1001,readers", "bob-token,bob,1002", "carol-token,carol,1003,ops", "webby-token,webby,1004", "denny-token,denny,1005"].join("\n") + "\n",
);

interface Access {
  url: string;
  ca: string;
  admin: { certPem: string; keyPem: string };
}

async function access(server: ServerProcess): Promise<Access> {
  const pki = join(server.dir, "pki");
  return {
    url: server.url,
    ca: await readFile(join(pki, "ca.crt"), "utf8"),
    admin: { certPem: await readFile(join(pki, "admin.crt"), "utf8"), keyPem: await readFile(join(pki, "admin.key"), "utf8") },
  };
}

function asToken(a: Access, token: string, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return call(a.url, a.ca, { method, path, body, headers: { authorization: `Bearer ${token}` } });
}

function asAdmin(a: Access, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return call(a.url, a.ca, { method, path, body, client: a.admin });
}

function namespace(name: string) {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name } };
}

function configMap(name: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } };
}

afterAll(() => dir.remove());

describe("ABAC (--authorization-mode=ABAC --authorization-policy-file)", () => {
  let server: ServerProcess;
  let a: Access;

  beforeAll(async () => {
    const policy = dir.write(
      "abac.jsonl",
      [
        { user: "alice", namespace: "team-a", resource: "*", apiGroup: "*", readonly: true },
        { group: "ops", namespace: "*", resource: "configmaps", apiGroup: "*" },
        { group: "system:authenticated", nonResourcePath: "/version" },
      ]
        .map((spec) => JSON.stringify({ apiVersion: `${profile.group("abac")}/v1beta1`, kind: "Policy", spec }))
        .join("\n") + "\n",
    );
    server = await startServerProcess(["--authorization-mode=ABAC", `--authorization-policy-file=${policy}`, `--token-auth-file=${tokens}`]);
    a = await access(server);
    for (const ns of ["team-a", "team-b"]) expect((await asAdmin(a, "POST", "/api/v1/namespaces", namespace(ns))).status).toBe(201);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("a readonly policy allows reads in its namespace only", async () => {
    expect((await asToken(a, "alice-token", "GET", "/api/v1/namespaces/team-a/configmaps")).status).toBe(200);
    const write = await asToken(a, "alice-token", "POST", "/api/v1/namespaces/team-a/configmaps", configMap("x"));
    expect(write.status).toBe(403);
    expect(write.body.message).toBe('configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team-a": No policy matched.');
    expect((await asToken(a, "alice-token", "GET", "/api/v1/namespaces/team-b/configmaps")).status).toBe(403);
  });

  it("a group policy with a wildcard namespace allows writes of its resource everywhere", async () => {
    expect((await asToken(a, "carol-token", "POST", "/api/v1/namespaces/team-b/configmaps", configMap("ops-cm"))).status).toBe(201);
    expect((await asToken(a, "carol-token", "GET", "/api/v1/namespaces/team-b/secrets")).status).toBe(403);
  });

  it("non-resource paths follow nonResourcePath; unmatched users are forbidden; masters pass", async () => {
    expect((await asToken(a, "bob-token", "GET", "/version")).status).toBe(200);
    const pods = await asToken(a, "bob-token", "GET", "/api/v1/pods");
    expect(pods.status).toBe(403);
    expect(pods.body.reason).toBe("Forbidden");
    expect((await asToken(a, "bob-token", "GET", "/apis")).status).toBe(403);
    expect((await asAdmin(a, "GET", "/api/v1/namespaces/team-b/secrets")).status).toBe(200);
  });
});

describe("AlwaysDeny (--authorization-mode=AlwaysDeny)", () => {
  let server: ServerProcess;
  let a: Access;

  beforeAll(async () => {
    server = await startServerProcess(["--authorization-mode=AlwaysDeny", `--token-auth-file=${tokens}`]);
    a = await access(server);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("denies every user but system:masters", async () => {
    const r = await asToken(a, "alice-token", "GET", "/api/v1/namespaces/default/configmaps");
    expect(r.status).toBe(403);
    expect(r.body.kind).toBe("Status");
    expect((await asToken(a, "bob-token", "GET", "/version")).status).toBe(403);
    expect((await asAdmin(a, "GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
  });
});

describe("the embedded default (Node,RBAC) with the default roles", () => {
  let server: ServerProcess;
  let a: Access;

  beforeAll(async () => {
    server = await startServerProcess([`--token-auth-file=${tokens}`]);
    a = await access(server);
  });

  afterAll(async () => {
    await server?.close();
  });

  it("binding cluster-status cluster-wide lets a group read nodes and health but not secrets", async () => {
    const rbac = profile.group("rbac");
    expect((await asAdmin(a, "GET", `/apis/${rbac}/v1/clusterroles/cluster-status`)).status).toBe(200);
    const binding = {
      apiVersion: profile.apiVersion("rbac", "v1"),
      kind: "ClusterRoleBinding",
      metadata: { name: "ops-status" },
      subjects: [{ kind: "Group", name: "ops", apiGroup: rbac }],
      roleRef: { kind: "ClusterRole", name: "cluster-status", apiGroup: rbac },
    };
    expect((await asAdmin(a, "POST", `/apis/${rbac}/v1/clusterrolebindings`, binding)).status).toBe(201);
    await until(async () => (await asToken(a, "carol-token", "GET", "/api/v1/nodes")).status === 200);
    expect((await asToken(a, "carol-token", "GET", "/readyz")).status).toBe(200);
    expect((await asToken(a, "carol-token", "GET", "/api/v1/secrets")).status).toBe(403);
    expect((await asToken(a, "bob-token", "GET", "/api/v1/nodes")).status).toBe(403);
  });
});

describe("Webhook through --authorization-config", () => {
  let server: ServerProcess;
  let webhook: LocalHttps;
  let a: Access;
  const reviewedUsers: string[] = [];

  function answer(res: ServerResponse, status: Record<string, unknown>) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ apiVersion: profile.apiVersion("authorization", "v1"), kind: "SubjectAccessReview", status }));
  }

  beforeAll(async () => {
    webhook = await startLocalHttps((_req, res, body) => {
      const review = JSON.parse(body) as { spec: { user: string } };
      reviewedUsers.push(review.spec.user);
      if (review.spec.user === "webby") return answer(res, { allowed: true });
      if (review.spec.user === "denny") return answer(res, { allowed: false, denied: true, reason: "denny is blocked" });
      return answer(res, { allowed: false });
    });
    const kubeconfig = webhookKubeconfig(dir, "webhook.kubeconfig", webhook.url, webhook.ca.certPem);
    const config = dir.write(
      "authz.yaml",
      [
        `apiVersion: apiserver.config.${profile.groupDomain}/v1`,
        "kind: AuthorizationConfiguration",
        "authorizers:",
        "- type: Webhook",
        "  name: local",
        "  webhook:",
        "    timeout: 3s",
        "    authorizedTTL: 5m",
        "    unauthorizedTTL: 30s",
        "    subjectAccessReviewVersion: v1",
        "    matchConditionSubjectAccessReviewVersion: v1",
        "    failurePolicy: NoOpinion",
        "    connectionInfo:",
        "      type: KubeConfigFile",
        `      kubeConfigFile: ${kubeconfig}`,
        "    matchConditions:",
        "    - expression: \"request.user != 'bob'\"",
        "- type: RBAC",
        "  name: rbac",
        "",
      ].join("\n"),
    );
    server = await startServerProcess([`--authorization-config=${config}`, `--token-auth-file=${tokens}`]);
    a = await access(server);
  });

  afterAll(async () => {
    await server?.close();
    await webhook?.close();
  });

  it("allows, denies with the webhook's reason, and falls through to RBAC", async () => {
    expect((await asToken(a, "webby-token", "GET", "/api/v1/namespaces/default/secrets")).status).toBe(200);
    const denied = await asToken(a, "denny-token", "GET", "/version");
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('forbidden: User "denny" cannot get path "/version": denny is blocked');
    // No opinion from the webhook: RBAC's default discovery role allows /version.
    expect((await asToken(a, "alice-token", "GET", "/version")).status).toBe(200);
    expect((await asToken(a, "alice-token", "GET", "/api/v1/secrets")).status).toBe(403);
  });

  it("skips the webhook when a match condition is false", async () => {
    const before = reviewedUsers.filter((u) => u === "bob").length;
    expect((await asToken(a, "bob-token", "GET", "/api/v1/namespaces/default/pods")).status).toBe(403);
    expect(reviewedUsers.filter((u) => u === "bob").length).toBe(before);
  });

  it("refuses to start when --authorization-mode is given as well", async () => {
    const config = dir.write("authz-both.yaml", [`apiVersion: apiserver.config.${profile.groupDomain}/v1`, "kind: AuthorizationConfiguration", "authorizers:", "- type: AlwaysAllow", ""].join("\n"));
    await expect(startServerProcess([`--authorization-config=${config}`, "--authorization-mode=RBAC"])).rejects.toThrow(/can not be specified when --authorization-mode/);
  });

  it("refuses to start with an InClusterConfig webhook: the API server cannot be its own client", async () => {
    const config = dir.write(
      "authz-in-cluster.yaml",
      [`apiVersion: apiserver.config.${profile.groupDomain}/v1`, "kind: AuthorizationConfiguration", "authorizers:", "- type: Webhook", "  name: self", "  webhook:", "    timeout: 3s", "    subjectAccessReviewVersion: v1", "    matchConditionSubjectAccessReviewVersion: v1", "    failurePolicy: Deny", "    connectionInfo:", "      type: InClusterConfig", ""].join("\n"),
    );
    await expect(startServerProcess([`--authorization-config=${config}`])).rejects.toThrow(/authorizer self: connectionInfo\.type InClusterConfig is not supported/);
  });
});

async function until(fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
