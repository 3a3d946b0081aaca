/**
 * `plat convert` on the corpus of old manifests (test/cli/fixtures/convert/, one file per
 * row of the Migration table, written as the platform's users wrote them): every
 * document converts to its replacement version with the table's field changes, the
 * removed kinds without a replacement say so in one line each, and the converted output
 * is accepted by a real replica (kubernetes profile) with fieldValidation=Strict (a
 * server-side dry run through `plat create`, whose --validate defaults to strict).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiVersionOf, MIGRATIONS } from "../../services/cli/convert/migrations.ts";
import { cliEnv, type CliEnv } from "./plat-cli-env.ts";

const CORPUS = join(import.meta.dirname, "fixtures", "convert");

type Item = { apiVersion: string; kind: string; metadata: { name?: string }; [k: string]: unknown };

let e: CliEnv;
let items: Item[];
let stderr: string;
let code: number;

beforeAll(async () => {
  e = await cliEnv("kubernetes");
  const r = await e.plat(["convert", "-f", CORPUS]);
  code = r.code;
  stderr = r.stderr;
  items = (parse(r.stdout) as { kind: string; items: Item[] }).items;
}, 60_000);

afterAll(async () => {
  await e?.close();
});

const byName = (name: string): Item => {
  const found = items.find((i) => i.metadata.name === name);
  if (!found) throw new Error(`${name} was not converted`);
  return found;
};

describe("plat convert", () => {
  it("has a corpus file for every removal release, and a document for every kind and version of every row of the table", () => {
    const releases = new Set(MIGRATIONS.map((m) => m.removedIn));
    const files = readdirSync(CORPUS);
    for (const r of releases) expect(files.some((f) => f.startsWith(`${r}-`)), r).toBe(true);
    const docs = new Set<string>();
    for (const f of files) {
      for (const d of parseAllDocuments(readFileSync(join(CORPUS, f), "utf8"))) {
        const o = d.toJS() as { apiVersion?: string; kind?: string; items?: Array<{ apiVersion: string; kind: string }> } | null;
        for (const i of o?.kind === "List" ? (o.items ?? []) : o ? [o] : []) docs.add(`${i.apiVersion} ${i.kind}`);
      }
    }
    const missing = MIGRATIONS.flatMap((m) => m.from.flatMap(([g, v]) => m.kinds.map((k) => `${apiVersionOf(e.api.profile, g, v)} ${k}`))).filter((row) => !docs.has(row));
    expect(missing).toEqual([]);
  });

  it("converts every document, and says which cannot be converted", () => {
    expect(code).toBe(1);
    const errors = stderr.split("\n").filter((l) => l.startsWith("error:"));
    expect(errors).toEqual([
      expect.stringMatching(/^error: .*1\.16-extensions-apps\.yaml: PodSecurityPolicy\/old-psp-extensions: PodSecurityPolicy was removed with no replacement API: use pod security admission/),
      expect.stringMatching(/^error: .*1\.25-batch-discovery-events-hpa-policy-node\.yaml: PodSecurityPolicy\/old-psp: PodSecurityPolicy was removed with no replacement API/),
    ]);
    expect(items).toHaveLength(48);
    const g = (k: Parameters<typeof e.api.profile.apiVersion>[0], v: string) => e.api.profile.apiVersion(k, v);
    const versions = Object.fromEntries(items.map((i) => [i.metadata.name ?? i.kind, i.apiVersion]));
    expect(versions).toMatchObject({
      "old-level-v1beta3": g("flowcontrol", "v1"),
      "old-capacity": g("storage", "v1"),
      "old-hpa-v2beta2": "autoscaling/v2",
      "old-cron": "batch/v1",
      "old-slice": g("discovery", "v1"),
      "old-event": g("events", "v1"),
      "old-pdb": "policy/v1",
      "old-runtime": g("node", "v1"),
      "old-validating": g("admissionregistration", "v1"),
      "crontabs.stable.example.com": g("apiextensions", "v1"),
      "old-csr": g("certificates", "v1"),
      "old-ingress-extensions": g("networking", "v1"),
      "old-netpol": g("networking", "v1"),
      "old-daemon": "apps/v1",
      "old-priority": g("scheduling", "v1"),
      "old-role": g("rbac", "v1"),
    });
    expect(stderr).toMatch(/old-ingress-extensions: spec\.backend renamed to spec\.defaultBackend/);
  });

  it("applies the table's renamed fields, required fields and defaults", () => {
    const limited = (name: string) => (byName(name).spec as { limited: Record<string, unknown> }).limited;
    expect(limited("old-level-v1beta3").nominalConcurrencyShares).toBe(30);
    expect(limited("old-level-v1beta2")).toMatchObject({ nominalConcurrencyShares: 5 });
    expect(limited("old-level-v1beta2")).not.toHaveProperty("assuredConcurrencyShares");
    expect(limited("old-level-v1beta1").nominalConcurrencyShares).toBe(30);
    const ing = byName("old-ingress-extensions").spec as { defaultBackend: unknown; rules: Array<{ http: { paths: Array<Record<string, unknown>> } }> };
    expect(ing.defaultBackend).toEqual({ service: { name: "default-http", port: { number: 80 } } });
    expect(ing.rules[0].http.paths[0]).toEqual({ path: "/api", pathType: "ImplementationSpecific", backend: { service: { name: "api", port: { name: "http" } } } });
    expect((byName("old-ingress-networking").spec as typeof ing).rules[0].http.paths[0].pathType).toBe("Prefix");
    const ext = byName("old-deploy-extensions").spec as Record<string, unknown>;
    expect(ext.selector).toEqual({ matchLabels: { app: "old-ext" } });
    expect(ext).not.toHaveProperty("rollbackTo");
    expect(ext).toMatchObject({ revisionHistoryLimit: 2147483647, progressDeadlineSeconds: 2147483647, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } });
    expect(byName("old-deploy-apps-v1beta1").spec).toMatchObject({ revisionHistoryLimit: 2, selector: { matchLabels: { app: "old-beta1" } } });
    expect(byName("old-daemon").spec).toMatchObject({ updateStrategy: { type: "OnDelete" } });
    expect(byName("old-daemon").spec).not.toHaveProperty("templateGeneration");
    expect(byName("old-stateful").spec).toMatchObject({ updateStrategy: { type: "OnDelete" } });
    const hpa = byName("old-hpa-v2beta1").spec as { metrics: unknown[] };
    expect(hpa.metrics).toEqual([
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } },
      { type: "Pods", pods: { metric: { name: "requests_per_second" }, target: { type: "AverageValue", averageValue: "100" } } },
      { type: "External", external: { metric: { name: "queue_depth", selector: { matchLabels: { queue: "jobs" } } }, target: { type: "Value", value: "30" } } },
    ]);
    expect((byName("old-slice").endpoints as unknown[])[0]).toEqual({ addresses: ["10.0.0.7"], conditions: { ready: true }, nodeName: "node-a", zone: "zone-1", deprecatedTopology: { "example.com/rack": "r7" } });
    expect(byName("old-pdb-empty-selector").spec).toEqual({ maxUnavailable: 1 });
    expect((byName("old-validating").webhooks as Array<Record<string, unknown>>)[0]).toMatchObject({ failurePolicy: "Ignore", matchPolicy: "Exact", timeoutSeconds: 30, admissionReviewVersions: ["v1beta1"], sideEffects: "None" });
    const crd = byName("crontabs.stable.example.com").spec as Record<string, unknown>;
    expect(crd).toMatchObject({ scope: "Namespaced", versions: [{ name: "v1", served: true, storage: true, subresources: { status: {} }, additionalPrinterColumns: [{ name: "Spec", type: "string", jsonPath: ".spec.cronSpec" }] }] });
    expect(crd).not.toHaveProperty("validation");
    expect(crd).not.toHaveProperty("preserveUnknownFields");
    const review = items.find((i) => i.kind === "SubjectAccessReview");
    expect(review?.spec).toMatchObject({ user: "jane", groups: ["developers"] });
    expect(byName("old-csr").spec).toMatchObject({ usages: ["digital signature", "key encipherment"] });
  });

  it("the converted objects are accepted by the server with fieldValidation=Strict", async () => {
    const file = join(e.dir, "converted.yaml");
    writeFileSync(file, stringify({ apiVersion: "v1", kind: "List", items }));
    const r = await e.plat(["create", "-f", file, "--dry-run=server"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(items.length);
    expect(lines.every((l) => l.endsWith(" created (server dry run)"))).toBe(true);
    // The same path refuses what Strict refuses: an unknown field.
    const bogus = join(e.dir, "bogus.yaml");
    writeFileSync(bogus, stringify({ ...items.find((i) => i.kind === "Lease"), bogus: true }));
    const refused = await e.plat(["create", "-f", bogus, "--dry-run=server"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error from server \(BadRequest\): error when creating ".*bogus\.yaml": .*unknown field "bogus"/);
  });

  it("--output-version converts what it can and names what does not fit", async () => {
    const r = await e.plat(["convert", "-f", join(CORPUS, "1.16-extensions-apps.yaml"), "--output-version", "apps/v1", "-o", "json"]);
    expect(r.code).toBe(1);
    const list = JSON.parse(r.stdout) as { items: Item[] };
    expect(list.items.map((i) => `${i.apiVersion} ${i.kind}`)).toEqual(["Deployment", "Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "ReplicaSet", "DaemonSet", "Deployment", "StatefulSet"].map((k) => `apps/v1 ${k}`));
    expect(r.stderr.split("\n").filter((l) => l.startsWith("error:"))).toEqual([
      expect.stringMatching(/NetworkPolicy\/old-netpol: NetworkPolicy extensions\/v1beta1 \(removed in 1\.16\) cannot be converted to apps\/v1: the replacement is .*\/v1$/),
      expect.stringMatching(/PodSecurityPolicy\/old-psp-extensions: PodSecurityPolicy was removed with no replacement API/),
    ]);
  });
});
