/**
 * `npm run cluster` as an operator uses it, with real processes (a 1-member store,
 * one apiserver replica, haproxy, the controller managers): `up --profile
 * kubernetes --replicas 1`, a ConfigMap created through haproxy, `down`, a second
 * `up` on the same directory that comes back on the same ports with the same
 * profile and the ConfigMap; and `--fresh` removing only what `up` made.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/profile.ts";
import { readLayout, wipeClusterData } from "../../deploy/local/layout.ts";
import { ownedAndAlive } from "../../deploy/local/state.ts";
import { localCluster } from "./support/local-cluster.ts";

const local = localCluster();
const { dir } = local;
const cluster = local.run;
afterAll(() => local.remove(), 60_000);

const configMaps = "/api/v1/namespaces/default/configmaps";
const kubernetes = getProfile("kubernetes");

describe("npm run cluster up after down", () => {
  it("restarts the same cluster, ports, profile and data included", async () => {
    await cluster("up", "--nodes", "1", "--replicas", "1", "--profile", "kubernetes");
    const first = local.state();
    expect(first.processes.filter((p) => p.role === "apiserver")).toHaveLength(1);
    const client = local.admin();
    const groups = (await client.request("GET", "/apis")).json<{ groups: Array<{ name: string }> }>().groups.map((g) => g.name);
    expect(groups).toContain(kubernetes.group("coordination"));
    const created = await client.request("POST", configMaps, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept" }, data: { k: "v" } } });
    expect(created.status).toBe(201);
    const layoutBefore = readLayout(dir);
    expect(layoutBefore.storeMembers?.map((m) => m.name)).toEqual(["store-1"]);

    await cluster("down");
    expect(first.processes.some((p) => ownedAndAlive(p))).toBe(false);

    await cluster("up", "--nodes", "1", "--replicas", "1");
    const second = local.state();
    expect(readLayout(dir)).toEqual({ ports: layoutBefore.ports, profile: "kubernetes", storeMembers: layoutBefore.storeMembers });
    expect(second.processes.map((p) => p.endpoint)).toEqual(first.processes.map((p) => p.endpoint));
    const again = local.admin();
    const read = await again.request("GET", `${configMaps}/kept`);
    expect(read.status).toBe(200);
    expect(read.json<{ data: Record<string, string> }>().data).toEqual({ k: "v" });
  }, 240_000);

  it("refuses a second up while the cluster runs, and a different profile over existing data", async () => {
    await expect(cluster("up", "--nodes", "1", "--replicas", "1")).rejects.toThrow(/already running/);
    await cluster("down");
    await expect(cluster("up", "--nodes", "1", "--replicas", "1", "--profile", "plat")).rejects.toThrow(/--profile kubernetes; use --fresh/);
  }, 60_000);
});

describe("wipeClusterData (--fresh)", () => {
  it.each([
    { made: ["store-1", "store-12", "redis", "apiserver", "logs", "layout.json", "haproxy.cfg", "controller-manager-1", "controller-manager.kubeconfig", "local-node-2"], kept: [] as string[] },
    { made: ["store-1"], kept: ["notes.txt", "store-x", "apiserver.bak", "state.json"] },
  ])("removes $made and keeps $kept", ({ made, kept }) => {
    const scratch = mkdtempSync(join(tmpdir(), "cluster-wipe-"));
    try {
      for (const name of made) {
        if (name.includes(".")) writeFileSync(join(scratch, name), "x");
        else mkdirSync(join(scratch, name, "member"), { recursive: true });
      }
      for (const name of kept) writeFileSync(join(scratch, name), "x");
      expect(wipeClusterData(scratch).sort()).toEqual([...made].sort());
      for (const name of made) expect(existsSync(join(scratch, name))).toBe(false);
      for (const name of kept) expect(existsSync(join(scratch, name))).toBe(true);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
