/**
 * kubectl 1.34, unmodified, against the apiserver process (`kubernetes` profile)
 * with admission webhooks served over HTTPS on 127.0.0.1: a validating webhook
 * denies, a mutating webhook adds a label, and a policy-engine-style webhook
 * with a namespaceSelector is bypassed for an exempt namespace.
 */
import { join } from "node:path";
import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients } from "../support/clients.ts";
import { kubectlEnv, type KubectlEnv } from "./kubectl-env.ts";
import { jsonPatch, startWebhookServer, type WebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";

const profile = getProfile("kubernetes");
const AR = profile.group("admissionregistration");

let k: KubectlEnv;
let wh: WebhookServer;

function labelsOf(obj: Record<string, unknown> | null): Record<string, string> {
  return ((obj?.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {}) as Record<string, string>;
}

beforeAll(async () => {
  k = await kubectlEnv(layerClients().kubectl);
  wh = await startWebhookServer();
  wh.on("/deny", (rv) => (labelsOf(rv.request.object).forbidden ? { response: { allowed: false, status: { code: 403, reason: "Forbidden", message: "forbidden configmaps are not allowed here" } } } : { response: { allowed: true } }));
  wh.on("/mutate", (rv) =>
    labelsOf(rv.request.object).stamped ? { response: { allowed: true } } : { response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/labels/stamped", value: "by-webhook" }]) } },
  );
  wh.on("/policy", (rv) => (labelsOf(rv.request.object).owner ? { response: { allowed: true } } : { response: { allowed: false, status: { code: 403, message: "every configmap needs an owner label" } } }));
  await k.ok(["create", "namespace", "adm"]);
  await k.ok(["create", "namespace", "adm-exempt"]);
  await k.ok(["label", "namespace", "adm-exempt", "policy-exempt=true"]);
  const hook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
    name,
    clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle },
    rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    ...extra,
  });
  const docs = [
    { apiVersion: `${AR}/v1`, kind: "ValidatingWebhookConfiguration", metadata: { name: "deny" }, webhooks: [hook("deny.example.com", "/deny", { objectSelector: { matchLabels: { e2e: "admission" } } })] },
    { apiVersion: `${AR}/v1`, kind: "MutatingWebhookConfiguration", metadata: { name: "mutate" }, webhooks: [hook("stamp.example.com", "/mutate", { objectSelector: { matchLabels: { e2e: "admission" } } })] },
    {
      apiVersion: `${AR}/v1`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "policy" },
      webhooks: [
        hook("policy.example.com", "/policy", {
          objectSelector: { matchLabels: { e2e: "policy" } },
          namespaceSelector: { matchExpressions: [{ key: "policy-exempt", operator: "DoesNotExist" }] },
        }),
      ],
    },
  ];
  const file = join(k.home, "webhooks.json");
  await writeFile(file, JSON.stringify({ apiVersion: "v1", kind: "List", items: docs }));
  // Client-side schema validation is off for this one document: it is not what this test is about.
  await k.ok(["apply", "--validate=false", "-f", file]);
  // The configurations reach the replica's informers within a second.
  await new Promise((r) => setTimeout(r, 1000));
});

afterAll(async () => {
  await k?.close();
  await wh?.close();
});

describe("kubectl 1.34 with admission webhooks", () => {
  it("a validating webhook denies with its message", async () => {
    const r = await k.run(["create", "configmap", "bad", "-n", "adm", "--from-literal=a=b", "--dry-run=none", "-o", "name"], {});
    expect(r.code).toBe(0); // unlabelled: not selected
    const file = join(k.home, "bad.json");
    await writeFile(file, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bad2", namespace: "adm", labels: { e2e: "admission", forbidden: "yes" } }, data: { a: "b" } }));
    const denied = await k.run(["create", "-f", file]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('admission webhook "deny.example.com" denied the request: forbidden configmaps are not allowed here');
    expect((await k.run(["get", "configmap", "bad2", "-n", "adm"])).code).not.toBe(0);
  });

  it("a mutating webhook adds its label", async () => {
    const file = join(k.home, "good.json");
    await writeFile(file, JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "good", namespace: "adm", labels: { e2e: "admission" } }, data: { a: "b" } }));
    await k.ok(["apply", "-f", file]);
    const got = JSON.parse(await k.ok(["get", "configmap", "good", "-n", "adm", "-o", "json"])) as { metadata: { labels: Record<string, string> } };
    expect(got.metadata.labels.stamped).toBe("by-webhook");
  });

  it("a policy webhook with a namespaceSelector is bypassed for an exempt namespace", async () => {
    const cm = (ns: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "unowned", namespace: ns, labels: { e2e: "policy" } }, data: { a: "b" } });
    const inPolicy = join(k.home, "p1.json");
    const exempt = join(k.home, "p2.json");
    await writeFile(inPolicy, cm("adm"));
    await writeFile(exempt, cm("adm-exempt"));
    const denied = await k.run(["apply", "-f", inPolicy]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('admission webhook "policy.example.com" denied the request: every configmap needs an owner label');
    await k.ok(["apply", "-f", exempt]);
    expect(await k.ok(["get", "configmap", "unowned", "-n", "adm-exempt", "-o", "name"])).toContain("configmap/unowned");
  });
});
