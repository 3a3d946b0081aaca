/**
 * helm 4, unmodified, against the apiserver process (`kubernetes` profile): a chart
 * that ships a CustomResourceDefinition in `crds/` and a custom resource of it in
 * `templates/` installs (helm waits for the CRD to be established before it applies
 * the template), upgrades the custom resource and uninstalls it (the CRD stays, as
 * helm keeps CRDs).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients, runClient, type RunOptions } from "../support/clients.ts";
import { CRD_GROUP, cronTabCrd } from "../support/crd-fixtures.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const NS = "helm-crd";
const profile = getProfile("kubernetes");

let server: ServerProcess;
let work: string;
let bins: { kubectl: string; helm: string };
let env: Record<string, string>;

async function ok(bin: string, args: string[], opts: RunOptions = {}): Promise<string> {
  const r = await runClient(bin, args, { cwd: work, ...opts, env: { ...env, ...opts.env } });
  if (r.code !== 0) throw new Error(`${bin} ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}
const helm = (args: string[]) => ok(bins.helm, args);
const kubectl = (args: string[]) => ok(bins.kubectl, args);

beforeAll(async () => {
  bins = layerClients();
  server = await startServerProcess();
  work = await mkdtemp(join(tmpdir(), "e2e-helm-crd-"));
  env = { HOME: work, KUBECONFIG: server.kubeconfig, HELM_CACHE_HOME: join(work, "cache"), HELM_CONFIG_HOME: join(work, "config"), HELM_DATA_HOME: join(work, "data") };
  await kubectl(["create", "namespace", NS]);
  const chart = join(work, "tabs");
  await mkdir(join(chart, "crds"), { recursive: true });
  await mkdir(join(chart, "templates"), { recursive: true });
  await writeFile(join(chart, "Chart.yaml"), "apiVersion: v2\nname: tabs\nversion: 0.1.0\n");
  await writeFile(join(chart, "values.yaml"), "replicas: 2\n");
  // JSON is YAML: the CRD is written with the profile's names.
  await writeFile(join(chart, "crds", "crontabs.yaml"), JSON.stringify(cronTabCrd(profile), null, 2));
  await writeFile(
    join(chart, "templates", "tab.yaml"),
    `apiVersion: ${CRD_GROUP}/v1\nkind: CronTab\nmetadata:\n  name: {{ .Release.Name }}-tab\nspec:\n  cronSpec: "*/10 * * * *"\n  replicas: {{ .Values.replicas }}\n`,
  );
});

afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("helm 4: a chart with a CRD", () => {
  it("installs the CRD from crds/ and the custom resource from templates/", async () => {
    const out = await helm(["install", "nightly", "./tabs", "-n", NS]);
    expect(out).toMatch(/^STATUS: deployed$/m);
    const tab = JSON.parse(await kubectl(["-n", NS, "get", "crontab", "nightly-tab", "-o", "json"])) as { spec: Record<string, unknown>; metadata: { annotations?: Record<string, string> } };
    expect(tab.spec).toMatchObject({ cronSpec: "*/10 * * * *", replicas: 2, image: "busybox" });
    expect(tab.metadata.annotations?.["meta.helm.sh/release-name"]).toBe("nightly");
  });

  it("upgrades the custom resource and uninstalls it, keeping the CRD", async () => {
    await helm(["upgrade", "nightly", "./tabs", "-n", NS, "--set", "replicas=5"]);
    expect(await kubectl(["-n", NS, "get", "crontab", "nightly-tab", "-o", "jsonpath={.spec.replicas}"])).toBe("5");
    await helm(["uninstall", "nightly", "-n", NS]);
    expect((await kubectl(["-n", NS, "get", "crontabs", "-o", "name"])).trim()).toBe("");
    expect((await kubectl(["get", "crd", `crontabs.${CRD_GROUP}`, "-o", "name"])).trim()).toBe(`customresourcedefinition.${profile.group("apiextensions")}/crontabs.${CRD_GROUP}`);
  });
});
