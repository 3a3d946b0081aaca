/**
 * The store client against a real etcd (Debian's etcd-server, one member), which has no
 * call multiplexer: the client's probe is answered UNIMPLEMENTED and every call, also
 * those with a small answer, goes as a unary call of its own, with the same results.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { startEtcdCluster, type EtcdCluster } from "../support/etcd.ts";

let etcd: EtcdCluster | undefined;
let client: EtcdClient | undefined;

beforeAll(async () => {
  etcd = await startEtcdCluster(1);
  client = new EtcdClient(etcd.endpoints[0]);
}, 60_000);

afterAll(async () => {
  client?.close();
  await etcd?.stop();
});

describe("the store client on etcd, which has no call multiplexer", () => {
  it("sends every call as a unary call of its own, with correct results", async () => {
    const c = client as EtcdClient;
    for (let i = 0; i < 30; i++) {
      await c.unary("Put", { key: Buffer.from(`mux/${i}`), value: Buffer.from(String(i)) });
      const txn = await c.unary("Txn", {
        compare: [{ key: Buffer.from(`mux/${i}`), target: "VALUE", result: "EQUAL", value: Buffer.from(String(i)) }],
        success: [{ request_range: { key: Buffer.from(`mux/${i}`) } }],
      });
      expect(txn.succeeded).toBe(true);
    }
    const all = await Promise.all(Array.from({ length: 30 }, (_, i) => c.unary("Range", { key: Buffer.from(`mux/${i}`) })));
    all.forEach((r, i) => expect(Buffer.from(r.kvs[0].value ?? []).toString()).toBe(String(i)));
    expect(c.multiplexedCalls).toBe(0);
  });
});
