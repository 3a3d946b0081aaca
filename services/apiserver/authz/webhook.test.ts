/**
 * The Webhook authorizer against a local HTTPS server: allow / no opinion / deny,
 * the TTL cache, timeout and failure policy, match conditions, the review
 * versions, and an AuthorizationConfiguration file that is reloaded on change.
 */
import { writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAuthorizer } from "./chain.ts";
import { compileMatchConditions } from "./match-conditions.ts";
import { eventually, profile, startAuthzServer, startLocalHttps, TempDir, webhookKubeconfig, type LocalHttps } from "./testing/harness.ts";
import type { Attributes } from "./types.ts";
import { loadWebhookClientConfig, WebhookAuthorizer, type WebhookOptions } from "./webhook.ts";

interface Seen {
  apiVersion: string;
  spec: Record<string, unknown>;
  authorization?: string;
}

let server: LocalHttps;
const seen: Seen[] = [];
/** How the fake service answers, by user name. */
let answer: (spec: Record<string, unknown>, res: ServerResponse) => void;

function respond(res: ServerResponse, status: Record<string, unknown>, code = 200) {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify({ apiVersion: profile.apiVersion("authorization", "v1"), kind: "SubjectAccessReview", status }));
}

const dir = new TempDir();
let kubeconfig: string;

beforeAll(async () => {
  answer = (spec, res) => {
    switch (spec.user) {
      case "allowed":
        return respond(res, { allowed: true, reason: "ok by webhook" });
      case "denied":
        return respond(res, { allowed: false, denied: true, reason: "blocked by webhook" });
      case "slow":
        setTimeout(() => respond(res, { allowed: true }), 1500);
        return;
      case "broken":
        res.writeHead(200);
        res.end("not json");
        return;
      case "error":
        res.writeHead(500);
        res.end("boom");
        return;
      default:
        return respond(res, { allowed: false, reason: "no opinion" });
    }
  };
  server = await startLocalHttps((req: IncomingMessage, res: ServerResponse, body: string) => {
    const review = JSON.parse(body) as { apiVersion: string; spec: Record<string, unknown> };
    seen.push({ apiVersion: review.apiVersion, spec: review.spec, authorization: req.headers.authorization });
    answer(review.spec, res);
  });
  kubeconfig = webhookKubeconfig(dir, "webhook.kubeconfig", server.url, server.ca.certPem);
});

afterAll(async () => {
  await server?.close();
  dir.remove();
});

function attrs(user: string, extra: Partial<Attributes> = {}): Attributes {
  return {
    user: { username: user, groups: ["g1", "system:authenticated"] },
    verb: "list",
    isResourceRequest: true,
    path: "/api/v1/namespaces/ns/pods",
    namespace: "ns",
    apiGroup: "",
    apiVersion: "v1",
    resource: "pods",
    subresource: "",
    name: "",
    ...extra,
  };
}

function webhook(o: Partial<WebhookOptions> = {}): WebhookAuthorizer {
  return new WebhookAuthorizer({ name: "test", profile, client: loadWebhookClientConfig(kubeconfig), version: "v1", failurePolicy: "NoOpinion", ...o });
}

describe("webhook authorizer", () => {
  it("maps allowed, denied and neither", async () => {
    const w = webhook();
    expect(await w.authorize(attrs("allowed"))).toEqual({ decision: "Allow", reason: "ok by webhook" });
    expect(await w.authorize(attrs("denied"))).toEqual({ decision: "Deny", reason: "blocked by webhook" });
    expect((await w.authorize(attrs("someone"))).decision).toBe("NoOpinion");
  });

  it("sends a v1 review with user, groups, attributes and parsed selectors, and the bearer token", async () => {
    seen.length = 0;
    await webhook().authorize(
      attrs("someone-v1", { fieldSelector: { raw: "spec.nodeName=n1", requirements: [{ key: "spec.nodeName", operator: "In", values: ["n1"] }] } }),
    );
    expect(seen[0].apiVersion).toBe(profile.apiVersion("authorization", "v1"));
    expect(seen[0].authorization).toBe("Bearer secret-token");
    expect(seen[0].spec).toEqual({
      user: "someone-v1",
      groups: ["g1", "system:authenticated"],
      resourceAttributes: {
        namespace: "ns",
        verb: "list",
        group: "",
        version: "v1",
        resource: "pods",
        subresource: "",
        name: "",
        fieldSelector: { requirements: [{ key: "spec.nodeName", operator: "In", values: ["n1"] }] },
      },
    });
  });

  it("sends v1beta1 with `group` and non-resource attributes", async () => {
    seen.length = 0;
    await webhook({ version: "v1beta1" }).authorize(attrs("someone-beta", { isResourceRequest: false, path: "/healthz", verb: "get" }));
    expect(seen[0].apiVersion).toBe(profile.apiVersion("authorization", "v1beta1"));
    expect(seen[0].spec).toEqual({ user: "someone-beta", group: ["g1", "system:authenticated"], nonResourceAttributes: { path: "/healthz", verb: "get" } });
  });

  it("caches allowed answers for authorizedTTL and others for unauthorizedTTL", async () => {
    let now = 1_000_000;
    const w = webhook({ now: () => now, authorizedTTLMs: 300_000, unauthorizedTTLMs: 30_000 });
    await w.authorize(attrs("allowed"));
    await w.authorize(attrs("someone"));
    expect(w.calls).toBe(2);
    now += 29_000;
    await w.authorize(attrs("allowed"));
    await w.authorize(attrs("someone"));
    expect(w.calls).toBe(2);
    now += 2_000;
    await w.authorize(attrs("someone"));
    expect(w.calls).toBe(3);
    await w.authorize(attrs("allowed"));
    expect(w.calls).toBe(3);
    now += 300_000;
    await w.authorize(attrs("allowed"));
    expect(w.calls).toBe(4);
  });

  it("applies the failure policy to timeouts, errors and malformed answers", async () => {
    const noOpinion = webhook({ timeoutMs: 200 });
    const deny = webhook({ timeoutMs: 200, failurePolicy: "Deny" });
    for (const user of ["slow", "broken", "error"]) {
      const a = await noOpinion.authorize(attrs(user));
      expect(a.decision).toBe("NoOpinion");
      expect(a.error).toBeTruthy();
      const d = await deny.authorize(attrs(user));
      expect(d.decision).toBe("Deny");
    }
    // Failures are not cached.
    const calls = deny.calls;
    await deny.authorize(attrs("error"));
    expect(deny.calls).toBe(calls + 1);
  });

  it("caps the timeout at 30s and refuses plain http", () => {
    expect(() => new WebhookAuthorizer({ name: "x", profile, client: { url: "http://127.0.0.1:1/" }, version: "v1" })).toThrow(/https/);
    expect(() => new WebhookAuthorizer({ name: "x", profile, client: { url: "https://127.0.0.1:1/?a=b" }, version: "v1" })).toThrow(/query/);
  });

  it("match conditions: all true calls, any false skips, errors follow the failure policy", async () => {
    const conditions = compileMatchConditions([
      { expression: "has(request.resourceAttributes)" },
      { expression: "request.resourceAttributes.namespace == 'ns'" },
    ]);
    const w = webhook({ matchConditions: conditions });
    expect((await w.authorize(attrs("allowed"))).decision).toBe("Allow");
    const before = w.calls;
    expect((await w.authorize(attrs("allowed", { namespace: "other" }))).decision).toBe("NoOpinion");
    expect(w.calls).toBe(before);
    // Non-resource requests make the second expression fail (no key) while the first is false: skipped.
    expect((await w.authorize(attrs("allowed", { isResourceRequest: false, path: "/x", verb: "get" }))).decision).toBe("NoOpinion");
    const erroring = compileMatchConditions([{ expression: "request.resourceAttributes.missing == 'x'" }]);
    expect((await webhook({ matchConditions: erroring, failurePolicy: "Deny" }).authorize(attrs("allowed"))).decision).toBe("Deny");
    expect((await webhook({ matchConditions: erroring, failurePolicy: "NoOpinion" }).authorize(attrs("allowed"))).decision).toBe("NoOpinion");
    expect(w.calls).toBe(before);
  });

  it("rejects bad match conditions at load", () => {
    expect(() => compileMatchConditions([{ expression: "1 +" }])).toThrow(/compilation failed/);
    expect(() => compileMatchConditions([{ expression: "'a'" }])).toThrow(/must evaluate to bool/);
    expect(() => compileMatchConditions(Array.from({ length: 65 }, (_, i) => ({ expression: `request.user == 'u${i}'` })))).toThrow(/at most 64/);
  });
});

function configYaml(authorizers: string): string {
  return [`apiVersion: ${profile.apiVersion("apiserverConfig", "v1")}`, "kind: AuthorizationConfiguration", "authorizers:", authorizers].join("\n");
}

function webhookEntry(name: string, failurePolicy: string, extra = ""): string {
  return [
    "- type: Webhook",
    `  name: ${name}`,
    "  webhook:",
    "    timeout: 3s",
    "    subjectAccessReviewVersion: v1",
    "    matchConditionSubjectAccessReviewVersion: v1",
    `    failurePolicy: ${failurePolicy}`,
    "    connectionInfo:",
    "      type: KubeConfigFile",
    `      kubeConfigFile: ${kubeconfig}`,
    extra,
  ].join("\n");
}

describe("AuthorizationConfiguration file", () => {
  it("chains webhook and RBAC through HTTPS, and reloads on change keeping the old chain when broken", async () => {
    const path = dir.write("authz.yaml", configYaml([webhookEntry("first", "NoOpinion"), "- type: RBAC", "  name: rbac"].join("\n")));
    const logs: string[] = [];
    const s = await startAuthzServer({ configFile: path }, { deps: { reloadIntervalMs: 60_000, log: (_l, msg) => logs.push(msg) } });
    try {
      const allowed = await s.as("allowed");
      const denied = await s.as("denied");
      const someone = await s.as("someone");
      expect((await s.call(allowed, "GET", "/api/v1/namespaces/default/pods")).status).toBe(200);
      const d = await s.call(denied, "GET", "/api/v1/namespaces/default/pods");
      expect(d.status).toBe(403);
      expect(d.body.message).toBe('pods is forbidden: User "denied" cannot list resource "pods" in API group "" in the namespace "default": blocked by webhook');
      const n = await s.call(someone, "GET", "/api/v1/namespaces/default/pods");
      expect(n.status).toBe(403);
      expect(n.body.message).toContain("no opinion");

      // A file that does not validate keeps the previous chain and is reported.
      writeFileSync(path, configYaml("- type: Webhook\n  name: broken\n"));
      await eventually(() => s.handle.reloadStatus().failures > 0);
      expect(s.handle.reloadStatus().lastError).toMatch(/webhook: Required value/);
      expect((await s.call(allowed, "GET", "/api/v1/namespaces/default/pods")).status).toBe(200);
      expect(logs.some((m) => m.includes("reload failed"))).toBe(true);

      // A valid change takes effect: everyone is allowed now.
      const loads = s.handle.reloadStatus().loads;
      writeFileSync(path, configYaml("- type: AlwaysAllow\n"));
      await eventually(() => s.handle.reloadStatus().loads > loads);
      expect(s.handle.reloadStatus().lastError).toBeUndefined();
      expect((await s.call(someone, "GET", "/api/v1/namespaces/default/pods")).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it("is exclusive with --authorization-mode and must be valid at start", async () => {
    const path = dir.write("authz2.yaml", configYaml("- type: AlwaysAllow\n"));
    await expect(buildAuthorizer({ configFile: path, modes: ["RBAC"] }, { profile })).rejects.toThrow(/can not be specified/);
    const bad = dir.write("authz3.yaml", configYaml("- type: Webhook\n  name: w\n  webhook:\n    timeout: 45s\n"));
    await expect(buildAuthorizer({ configFile: bad }, { profile })).rejects.toThrow(/must be > 0s and <= 30s/);
  });

  it("reloads on the periodic schedule too", async () => {
    const path = dir.write("authz4.yaml", configYaml("- type: AlwaysDeny\n"));
    const h = await buildAuthorizer({ configFile: path }, { profile, reloadIntervalMs: 100 });
    try {
      const user = { username: "u", groups: [] };
      const info = { verb: "get", isResourceRequest: false, path: "/x", namespace: "", apiGroup: "", resource: "", subresource: "", name: "", apiPrefix: "" as const, apiVersion: "", parts: [] };
      // The handle answers synchronously when every authorizer asked did (chain.ts): a throw or a rejection.
      await expect(Promise.resolve().then(() => h.authorize(user, info))).rejects.toThrow(/cannot get path/);
      writeFileSync(path, configYaml("- type: AlwaysAllow\n"));
      await eventually(async () => {
        try {
          await h.authorize(user, info);
          return true;
        } catch {
          return false;
        }
      });
    } finally {
      h.close();
    }
  });
});
