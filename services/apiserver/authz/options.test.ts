import { describe, expect, it } from "vitest";
import { parseAuthorizationConfiguration, parseAuthorizationFlags, parseDuration, validateAuthorizationFlags } from "./options.ts";
import { profile } from "./testing/harness.ts";

describe("authorization flags", () => {
  it("parses both flag forms", () => {
    expect(
      parseAuthorizationFlags([
        "--authorization-mode=Node,RBAC,Webhook",
        "--authorization-webhook-config-file",
        "/etc/w.yaml",
        "--authorization-webhook-cache-authorized-ttl=10m",
        "--authorization-webhook-cache-unauthorized-ttl=1m30s",
        "--other=x",
      ]),
    ).toEqual({ modes: ["Node", "RBAC", "Webhook"], webhookConfigFile: "/etc/w.yaml", webhookAuthorizedTTLMs: 600_000, webhookUnauthorizedTTLMs: 90_000 });
  });

  it.each([
    [{ modes: ["RBAC"], configFile: "/x" }, /can not be specified/],
    [{ modes: ["RBAC", "RBAC"] }, /more than once/],
    [{ modes: ["Magic"] }, /not a valid mode/],
    [{ modes: ["ABAC"] }, /policy file not passed/],
    [{ modes: ["RBAC"], policyFile: "/p" }, /without mode ABAC/],
    [{ modes: ["Webhook"] }, /config file not passed/],
    [{ webhookConfigFile: "/w" }, /without mode Webhook/],
  ] as const)("rejects %j", (flags, err) => {
    expect(() => validateAuthorizationFlags(flags as Parameters<typeof validateAuthorizationFlags>[0])).toThrow(err);
  });

  it.each([
    ["5m0s", 300_000],
    ["30s", 30_000],
    ["1h", 3_600_000],
    ["250ms", 250],
    ["1.5s", 1500],
    ["0", 0],
  ] as const)("duration %s", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it("rejects bad durations", () => {
    expect(() => parseDuration("5 minutes")).toThrow();
    expect(() => parseDuration("")).toThrow();
  });
});

const head = `apiVersion: ${profile.apiVersion("apiserverConfig", "v1")}\nkind: AuthorizationConfiguration\n`;

describe("AuthorizationConfiguration", () => {
  it("parses authorizers with webhook defaults", () => {
    const cfg = parseAuthorizationConfiguration(
      head +
        `authorizers:
- type: Node
  name: node
- type: Webhook
  name: policy.example.com
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: /w.yaml}
    matchConditions:
    - expression: has(request.resourceAttributes)
- type: RBAC
  name: rbac
`,
      profile,
    );
    expect(cfg.authorizers.map((a) => a.type)).toEqual(["Node", "Webhook", "RBAC"]);
    const w = cfg.authorizers[1].webhook;
    expect(w?.authorizedTTLMs).toBe(300_000);
    expect(w?.unauthorizedTTLMs).toBe(30_000);
    expect(w?.timeoutMs).toBe(3000);
    expect(w?.matchConditions.count).toBe(1);
  });

  it.each([
    ["no authorizers", "authorizers: []\n", /at least one authorization mode/],
    ["unknown type", "authorizers:\n- type: ABAC\n", /Unsupported value: "ABAC"/],
    ["webhook without name", "authorizers:\n- type: Webhook\n  webhook: {}\n", /name: Required value/],
    ["duplicate RBAC", "authorizers:\n- type: RBAC\n- type: RBAC\n", /Duplicate value: "RBAC"/],
    ["webhook config on RBAC", "authorizers:\n- type: RBAC\n  webhook: {timeout: 1s}\n", /only allowed for type Webhook/],
    [
      "missing required webhook fields",
      "authorizers:\n- type: Webhook\n  name: w\n  webhook: {connectionInfo: {type: KubeConfigFile, kubeConfigFile: /x}}\n",
      /timeout: Required value.*subjectAccessReviewVersion: Required value.*failurePolicy: Required value/,
    ],
    [
      "bad failure policy and version",
      "authorizers:\n- type: Webhook\n  name: w\n  webhook: {timeout: 1s, subjectAccessReviewVersion: v2, failurePolicy: Maybe, connectionInfo: {type: KubeConfigFile, kubeConfigFile: /x}}\n",
      /Unsupported value: "v2".*Unsupported value: "Maybe"/,
    ],
    [
      "match conditions need their version",
      "authorizers:\n- type: Webhook\n  name: w\n  webhook: {timeout: 1s, subjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: KubeConfigFile, kubeConfigFile: /x}, matchConditions: [{expression: 'true'}]}\n",
      /matchConditionSubjectAccessReviewVersion: Required value/,
    ],
    [
      "timeout over 30s",
      "authorizers:\n- type: Webhook\n  name: w\n  webhook: {timeout: 31s, subjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: KubeConfigFile, kubeConfigFile: /x}}\n",
      /<= 30s/,
    ],
  ] as const)("rejects %s", (_n, body, err) => {
    expect(() => parseAuthorizationConfiguration(head + body, profile)).toThrow(err);
  });

  it("rejects other kinds and versions", () => {
    expect(() => parseAuthorizationConfiguration("apiVersion: v1\nkind: AuthorizationConfiguration\nauthorizers: []\n", profile)).toThrow(/unsupported apiVersion/);
  });
});
