/**
 * The `plat` CLI in the `kubernetes` profile (config from KUBECONFIG), side by side with
 * the platform's own kubectl 1.34 against the same replica: the same commands must print
 * the same text (tables with the AGE cells masked, names, errors, whoami, can-i, delete,
 * patch and apply messages) and the same objects (yaml).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { layerClients, runClient, type RunResult } from "../support/clients.ts";
import { cliEnv, type CliEnv } from "./plat-cli-env.ts";

let e: CliEnv;
let kubectl: string;
const NS = "side";

beforeAll(async () => {
  kubectl = layerClients().kubectl;
  e = await cliEnv("kubernetes");
  await e.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  for (const [name, tier] of [
    ["alpha", "web"],
    ["beta", "db"],
  ]) {
    await e.admin.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { tier } }, data: { k: name } });
  }
}, 60_000);

afterAll(async () => {
  await e?.close();
});

function kube(args: string[]): Promise<RunResult> {
  return runClient(kubectl, args, { env: e.env, timeoutMs: 60_000 });
}

/** Both clients on the same arguments, concurrently. */
async function both(args: string[]): Promise<[RunResult, RunResult]> {
  return Promise.all([e.plat(args), kube(args)]);
}

/** AGE cells (the last column of these tables) change between two runs: masked. */
function maskAge(table: string): string {
  return table.replace(/ \d+[smhd]\d*[smh]?$/gm, " <age>");
}

describe("plat CLI and kubectl print the same", () => {
  it("tables, names, jsonpath and yaml", async () => {
    const runs = await Promise.all([
      both(["get", "configmaps", "-n", NS, "-l", "tier"]),
      both(["get", "cm", "-n", NS, "-o", "name"]),
      both(["get", "cm", "-A", "-l", "tier=db"]),
      both(["get", "cm", "alpha", "-n", NS, "-o", "jsonpath={.metadata.name}:{.data.k}"]),
      both(["get", "cm", "beta", "-n", NS, "-o", "yaml"]),
      both(["get", "namespaces", NS]),
    ]);
    for (const [i, [p, k]] of runs.slice(0, 4).entries()) {
      expect(p.code, `${i}: ${p.stderr}`).toBe(0);
      expect(maskAge(p.stdout), `run ${i}`).toBe(maskAge(k.stdout));
    }
    const [p, k] = runs[4];
    expect(parse(p.stdout)).toEqual(parse(k.stdout));
    expect(maskAge(runs[5][0].stdout)).toBe(maskAge(runs[5][1].stdout));
  });

  it("errors and empty lists", async () => {
    const runs = await Promise.all([both(["get", "cm", "nope", "-n", NS]), both(["get", "secrets", "-n", NS, "-l", "none=here"]), both(["--context", "viewer", "auth", "can-i", "list", "secrets", "-n", NS])]);
    for (const [p, k] of runs) {
      expect(p.code).toBe(k.code);
      expect(p.stderr).toBe(k.stderr);
      expect(p.stdout).toBe(k.stdout);
    }
  });

  it("whoami, can-i, create, patch, apply and delete messages", async () => {
    const cm = (name: string) => {
      const path = join(e.dir, `${name}.yaml`);
      writeFileSync(path, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: ${NS}}\ndata: {a: "1"}\n`);
      return path;
    };
    const who = await both(["auth", "whoami"]);
    expect(who[0].stdout).toBe(who[1].stdout);
    const can = await both(["auth", "can-i", "create", "deployments.apps", "-n", NS]);
    expect(can[0].stdout).toBe(can[1].stdout);
    const [pc, kc] = await Promise.all([e.plat(["create", "-f", cm("made-by-plat")]), kube(["create", "-f", cm("made-by-kubectl")])]);
    expect(pc.stdout.replace("plat", "X")).toBe(kc.stdout.replace("kubectl", "X"));
    const [pp, kp] = await Promise.all([
      e.plat(["-n", NS, "patch", "cm", "made-by-plat", "-p", '{"data":{"b":"2"}}']),
      kube(["-n", NS, "patch", "cm", "made-by-kubectl", "-p", '{"data":{"b":"2"}}']),
    ]);
    expect(pp.stdout.replace("plat", "X")).toBe(kp.stdout.replace("kubectl", "X"));
    const [pa, ka] = await Promise.all([
      e.plat(["apply", "--server-side", "--field-manager", "m", "-f", cm("applied-by-plat")]),
      kube(["apply", "--server-side", "--field-manager", "m", "-f", cm("applied-by-kubectl")]),
    ]);
    expect(pa.stdout.replace("plat", "X")).toBe(ka.stdout.replace("kubectl", "X"));
    const [pd, kd] = await Promise.all([e.plat(["-n", NS, "delete", "cm", "made-by-plat", "applied-by-plat"]), kube(["-n", NS, "delete", "cm", "made-by-kubectl", "applied-by-kubectl"])]);
    expect(pd.code, pd.stderr).toBe(0);
    expect(pd.stdout.replace(/plat/g, "X")).toBe(kd.stdout.replace(/kubectl/g, "X"));
  });

  it("api-resources lists the same resources", async () => {
    const [p, k] = await both(["api-resources"]);
    const lines = (t: string) =>
      t
        .trim()
        .split("\n")
        .map((l) => l.trim().split(/\s+/).join(" "))
        .sort();
    expect(lines(p.stdout)).toEqual(lines(k.stdout));
  });
});
