import { status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import type { StoreBackend } from "./backend.ts";
import type { MemberInfo, MembershipBackend } from "./capabilities.ts";
import { LocalBackend } from "./local-backend.ts";
import { b, expectGrpcError, startTestServer, type Msg, type TestServer } from "./testing/support.ts";

type Members = Msg & { members: Array<{ ID: string; name: string; peerURLs: string[]; clientURLs: string[]; isLearner: boolean }> };

/** A backend with membership over a shared LocalBackend, acting as member `self` with `leader` leading. */
function memberBackend(local: LocalBackend, self: bigint, leader: bigint, members: MemberInfo[]): StoreBackend & MembershipBackend {
  return {
    mvcc: local.mvcc,
    propose: (r) => local.propose(r),
    readBarrier: () => local.readBarrier(),
    onApplied: (l) => local.onApplied(l),
    status: () => ({ ...local.status(), memberId: self, leader, clusterId: 99n, term: 7 }),
    memberList: () => members,
    async memberAdd(peerUrls, isLearner) {
      const member = { id: 10n, name: "", peerUrls, clientUrls: [], isLearner };
      members.push(member);
      return { member, members };
    },
    async memberRemove(id) {
      const i = members.findIndex((m) => BigInt(m.id) === id);
      if (i < 0) throw Object.assign(new Error("store: member not found"), { name: "NodeError", code: "invalid-member" });
      members.splice(i, 1);
      return members;
    },
    async memberPromote(id) {
      for (const m of members) if (BigInt(m.id) === id) m.isLearner = false;
      return members;
    },
  };
}

describe("Cluster and Maintenance services", () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });
  const start = async (...args: Parameters<typeof startTestServer>) => {
    const s = await startTestServer(...args);
    servers.push(s);
    return s;
  };

  it("reports Status and no alarms", async () => {
    const t = await start();
    await t.call("KV", "Put", { key: b("a"), value: b("1") });
    const s = await t.call<Msg & Record<string, unknown>>("Maintenance", "Status");
    expect(s).toMatchObject({ version: "3.5.0", leader: "1", raftTerm: "1", raftIndex: "1", raftAppliedIndex: "1", errors: [], isLearner: false });
    expect(Number(s.dbSize)).toBeGreaterThan(0);
    expect(s.header).toEqual({ cluster_id: "1", member_id: "1", revision: "2", raft_term: "1" });
    const alarms = await t.call<Msg & { alarms: unknown[] }>("Maintenance", "Alarm", { action: "GET" });
    expect(alarms.alarms).toEqual([]);
  });

  it("lists this node alone without membership; changes are UNIMPLEMENTED", async () => {
    const t = await start({ name: "n1", clientUrls: ["http://127.0.0.1:1"], peerUrls: ["http://127.0.0.1:2"] });
    const list = await t.call<Members>("Cluster", "MemberList");
    expect(list.members).toEqual([{ ID: "1", name: "n1", peerURLs: ["http://127.0.0.1:2"], clientURLs: ["http://127.0.0.1:1"], isLearner: false }]);
    await expectGrpcError(t.call("Cluster", "MemberAdd", { peerURLs: ["http://127.0.0.1:3"] }), status.UNIMPLEMENTED);
    await expectGrpcError(t.call("Cluster", "MemberRemove", { ID: 1 }), status.UNIMPLEMENTED);
    await expectGrpcError(t.call("Cluster", "MemberPromote", { ID: 1 }), status.UNIMPLEMENTED);
  });

  it("delegates membership to the backend", async () => {
    const members: MemberInfo[] = [{ id: 1, name: "a", peerUrls: ["http://127.0.0.1:2380"], clientUrls: ["http://127.0.0.1:2379"], isLearner: false }];
    const t = await start({}, memberBackend(new LocalBackend(), 1n, 1n, members));
    const added = await t.call<Members & { member: Members["members"][0] }>("Cluster", "MemberAdd", { peerURLs: ["http://127.0.0.1:3380"], isLearner: true });
    expect(added.member).toMatchObject({ ID: "10", isLearner: true });
    expect(added.header).toMatchObject({ cluster_id: "99", member_id: "1", raft_term: "7" });
    expect((await t.call<Members>("Cluster", "MemberPromote", { ID: "10" })).members[1].isLearner).toBe(false);
    expect((await t.call<Members>("Cluster", "MemberRemove", { ID: "10" })).members.map((m) => m.ID)).toEqual(["1"]);
    await expectGrpcError(t.call("Cluster", "MemberRemove", { ID: "10" }), status.FAILED_PRECONDITION, /member not found/);
    await expectGrpcError(t.call("Cluster", "MemberAdd", { peerURLs: ["not a url"] }), status.INVALID_ARGUMENT);
    await expectGrpcError(t.call("Cluster", "MemberAdd", { peerURLs: [] }), status.INVALID_ARGUMENT);
  });

  it("forwards keep-alives and time-to-live from a follower to the leader's client URL", async () => {
    const local = new LocalBackend();
    const members: MemberInfo[] = [];
    const leader = await start({ minLeaseTtl: 1 }, memberBackend(local, 1n, 1n, members));
    const follower = await start({ minLeaseTtl: 1 }, memberBackend(local, 2n, 1n, members));
    members.push({ id: 1, name: "l", peerUrls: [], clientUrls: [`http://${leader.endpoint}`], isLearner: false });
    members.push({ id: 2, name: "f", peerUrls: [], clientUrls: [`http://${follower.endpoint}`], isLearner: false });
    const g = await follower.call<Msg & { ID: string }>("Lease", "LeaseGrant", { TTL: 20 });
    const s = follower.stream<{ ID: string }, { ID: string; TTL: string }>("Lease", "LeaseKeepAlive");
    const reply = new Promise<{ ID: string; TTL: string }>((resolve) => s.once("data", resolve));
    s.write({ ID: g.ID });
    expect(await reply).toMatchObject({ ID: g.ID, TTL: "20" });
    const ttl = await follower.call<Msg & { TTL: string; grantedTTL: string }>("Lease", "LeaseTimeToLive", { ID: g.ID });
    expect(ttl.grantedTTL).toBe("20");
    expect(Number(ttl.TTL)).toBeGreaterThan(18);
    expect(ttl.header?.member_id).toBe("2");
    s.end();
  });
});
