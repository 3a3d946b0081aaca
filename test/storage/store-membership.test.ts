/**
 * Growing a store cluster from 3 to 5 members and shrinking it back with etcdctl 3.4
 * (`member add`, a new member started with --initial-cluster-state existing, `member
 * remove`) while a writer keeps putting through the gRPC API: no write fails, the new
 * members serve the data, and removed members leave on their own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { waitForMembers } from "../../services/store/server/node-process.ts";
import { etcdctlOk, startStoreCluster, type Member, type StoreCluster } from "./store-maintenance-support.ts";

describe("store membership changes under write load", () => {
  let c: StoreCluster;
  beforeAll(async () => {
    c = await startStoreCluster(3);
  }, 90_000);
  afterAll(async () => {
    if (c !== undefined) await c.close();
  });

  it("grows 3 -> 5 and shrinks back to 3 without a failed write", async () => {
    const ep = c.endpoints();
    const client = new EtcdClient(ep[0]);
    let writes = 0;
    const failures: string[] = [];
    let writing = true;
    const writer = (async () => {
      while (writing) {
        try {
          await client.unary("Put", { key: Buffer.from(`load/${writes % 50}`), value: Buffer.from(String(writes)) }, { deadline: Date.now() + 10_000 });
          writes++;
        } catch (err) {
          failures.push(String(err));
        }
      }
    })();

    const grow = async (name: string): Promise<Member> => {
      const m = await c.addMember(name);
      const out = await etcdctlOk(ep, ["member", "add", name, `--peer-urls=${m.peerUrl}`]);
      expect(out).toContain(`Member`);
      const initial = out.match(/ETCD_INITIAL_CLUSTER="([^"]+)"/)?.[1];
      expect(initial).toContain(`${name}=${m.peerUrl}`);
      expect(out).toContain('ETCD_INITIAL_CLUSTER_STATE="existing"');
      await c.start(c.members.indexOf(m), { state: "existing", initialCluster: initial });
      // Once it published its name, the next member add lists it by name.
      await waitForMembers(ep[0], c.members.filter((x) => x.child !== undefined).length);
      return m;
    };
    const m4 = await grow("m4");
    const m5 = await grow("m5");
    const before = writes;
    // The new members serve what the writer wrote before they joined and since.
    for (const m of [m4, m5]) {
      const deadline = Date.now() + 20_000;
      let seen = "";
      while (Date.now() < deadline && seen === "") {
        seen = await etcdctlOk([m.endpoint], ["get", "load/0", "--consistency=s", "--print-value-only"]);
        if (seen === "") await new Promise((r) => setTimeout(r, 100));
      }
      expect(seen).not.toBe("");
    }
    const list = await etcdctlOk(ep, ["member", "list", "-w", "json"]);
    const members = (JSON.parse(list) as { members: { ID: number; name: string }[] }).members;
    expect(members.map((m) => m.name).sort()).toEqual(["m1", "m2", "m3", "m4", "m5"]);

    for (const m of [m5, m4]) {
      const id = members.find((x) => x.name === m.name)?.ID ?? 0;
      const out = await etcdctlOk(ep, ["member", "remove", BigInt(id).toString(16)]);
      expect(out).toMatch(new RegExp(`Member\\s+${BigInt(id).toString(16)} removed from cluster`));
      // A removed member stops on its own.
      const child = m.child;
      if (child !== undefined && child.exitCode === null) await new Promise<void>((resolve) => child.once("exit", () => resolve()));
      m.child = undefined;
    }
    await waitForMembers(ep[0], 3);
    writing = false;
    await writer;
    client.close();
    expect(failures).toEqual([]);
    expect(writes).toBeGreaterThan(before);
    const last = await etcdctlOk(ep, ["get", `load/${(writes - 1) % 50}`, "--print-value-only"]);
    expect(last.trim()).toBe(String(writes - 1));
  }, 120_000);
});
