/**
 * kubectl 1.34, unmodified, against the apiserver process with the `kubernetes`
 * profile: apply a CustomResourceDefinition, wait for Established, then create,
 * get (printer columns, short name, category), patch, apply --server-side, scale,
 * explain and delete custom resources, and delete the CRD.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients } from "../support/clients.ts";
import { CRD_GROUP, cronTabCrd } from "../support/crd-fixtures.ts";
import { headerOf, kubectlEnv, rowsOf, type KubectlEnv } from "./kubectl-env.ts";

const profile = getProfile("kubernetes");
const NS = "crd-e2e";
let k: KubectlEnv;

async function file(name: string, body: unknown): Promise<string> {
  const path = join(k.home, name);
  await writeFile(path, JSON.stringify(body));
  return path;
}

const tab = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${CRD_GROUP}/v1`, kind: "CronTab", metadata: { name, namespace: NS }, spec });

beforeAll(async () => {
  k = await kubectlEnv(layerClients().kubectl);
  await k.ok(["create", "namespace", NS]);
});
afterAll(async () => {
  await k?.close();
});

describe("kubectl 1.34: custom resources", () => {
  it("applies a CRD and waits for it to be established", async () => {
    const out = await k.ok(["apply", "-f", await file("crd.json", cronTabCrd(profile))]);
    expect(out.trim()).toBe(`customresourcedefinition.${profile.group("apiextensions")}/crontabs.${CRD_GROUP} created`);
    await k.ok(["wait", "--for=condition=Established", `crd/crontabs.${CRD_GROUP}`, "--timeout=20s"]);
  });

  it("creates and gets custom resources with the printer columns, short name and category", async () => {
    expect((await k.ok(["create", "-f", await file("one.json", tab("one", { cronSpec: "*/5 * * * *", replicas: 2 }))])).trim()).toBe(`crontab.${CRD_GROUP}/one created`);
    const table = await k.ok(["get", "crontabs", "-n", NS]);
    expect(headerOf(table)).toEqual(["NAME", "SPEC", "REPLICAS"]);
    expect(rowsOf(table)).toEqual([["one", "*/5 * * * *", "2"]]);
    const short = await k.ok(["get", "crx", "one", "-n", NS, "-o", "jsonpath={.spec.image}"]);
    expect(short).toBe("busybox");
    const all = await k.ok(["get", "all", "-n", NS]);
    expect(all).toContain(`crontab.${CRD_GROUP}/one`);
  });

  it("patches, applies server-side and scales", async () => {
    await k.ok(["patch", "crontab", "one", "-n", NS, "--type", "merge", "-p", '{"spec":{"image":"alpine"}}']);
    expect(await k.ok(["get", "crontab", "one", "-n", NS, "-o", "jsonpath={.spec.image}"])).toBe("alpine");
    const smp = await k.run(["patch", "crontab", "one", "-n", NS, "--type", "strategic", "-p", '{"spec":{"image":"x"}}']);
    expect(smp.code).not.toBe(0);
    expect(smp.stderr).toContain("application/strategic-merge-patch+json is not supported");
    expect(smp.stderr).toContain("the body of the request was in an unknown format");
    const applied = await k.ok(["apply", "--server-side", "-f", await file("two.json", tab("two", { cronSpec: "* * * * *", ports: [{ name: "http", port: 80 }] }))]);
    expect(applied.trim()).toBe(`crontab.${CRD_GROUP}/two serverside-applied`);
    const again = await k.ok(["apply", "--server-side", "--field-manager", "other", "-f", await file("two-b.json", tab("two", { ports: [{ name: "https", port: 443 }] }))]);
    expect(again.trim()).toBe(`crontab.${CRD_GROUP}/two serverside-applied`);
    expect(await k.ok(["get", "crontab", "two", "-n", NS, "-o", "jsonpath={.spec.ports[*].name}"])).toBe("http https");
    expect((await k.ok(["scale", "crontab", "one", "-n", NS, "--replicas=3"])).trim()).toBe(`crontab.${CRD_GROUP}/one scaled`);
    expect(await k.ok(["get", "crontab", "one", "-n", NS, "-o", "jsonpath={.spec.replicas}"])).toBe("3");
  });

  it("explains the custom resource from OpenAPI", async () => {
    const out = await k.ok(["explain", "crontab.spec"]);
    expect(out).toMatch(new RegExp(`^GROUP:\\s+${CRD_GROUP.replace(/\./g, "\\.")}$`, "m"));
    expect(out).toMatch(/^KIND:\s+CronTab$/m);
    expect(out).toMatch(/^\s+cronSpec\s+<string>$/m);
    expect(out).toMatch(/^\s+ports\s+<\[\]Object>$/m);
  });

  it("refuses an invalid custom resource with the validation message", async () => {
    const r = await k.run(["create", "-f", await file("bad.json", tab("bad", { replicas: 500 }))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`The CronTab "bad" is invalid: spec.replicas: Invalid value: 500: spec.replicas in body should be less than or equal to 100`);
  });

  it("deletes custom resources and the CRD; the resource type is gone", async () => {
    expect((await k.ok(["delete", "crontab", "one", "-n", NS])).trim()).toBe(`crontab.${CRD_GROUP} "one" deleted from ${NS} namespace`);
    await k.ok(["delete", "crd", `crontabs.${CRD_GROUP}`, "--timeout=30s"]);
    const gone = await k.run(["get", "crontabs", "-n", NS]);
    expect(gone.code).toBe(1);
    // kubectl's discovery cache may still know the type: either way the server no longer serves it.
    expect(gone.stderr).toMatch(/doesn't have a resource type "crontabs"|could not find the requested resource/);
    expect(await k.ok(["get", "--raw", "/apis"])).not.toContain(CRD_GROUP);
  });
});
