/**
 * Growing and shrinking the store of a running local cluster, as an operator does
 * with etcdctl:
 * - member-add: MemberAdd of the next member (store-<n>, fresh free ports, https
 *   peer URL) through a running member, then the member is started with
 *   `--initial-cluster-state existing` and the initial cluster MemberAdd answered
 *   (etcdctl's ETCD_INITIAL_CLUSTER); once it serves and the member list shows it
 *   started, it is recorded in state.json (next to the other store processes) and
 *   in layout.json's storeMembers. If it does not come up, it is removed again.
 * - member-remove <id|name>: MemberRemove through another member (the hex id as
 *   etcdctl prints it, or the member's name); the removed member stops on its own
 *   (or is stopped), and its record, layout entry and data directory go (a removed
 *   member cannot rejoin with its old data).
 * The apiserver replicas keep the store endpoints they were started with (their
 * pool fails over away from a removed member); the next `up` gives them the new list.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { ChannelCredentials } from "@grpc/grpc-js";
import { EtcdClient } from "../../shared/etcd/client.ts";
import type { PbMember } from "../../shared/etcd/wire.ts";
import { grpcChannelCredentials } from "../../shared/tls/grpc-credentials.ts";
import { waitForMembers, waitForStore } from "../../services/store/server/node-process.ts";
import { freePort, peerUrl, spawnStoreMember } from "./components.ts";
import { readLayout, writeLayout, type ClusterLayout, type StoreMemberLayout } from "./layout.ts";
import { ensureStorePki, type StorePki } from "./store-pki.ts";
import { ownedAndAlive, readState, writeState, type ClusterState, type ProcessRecord } from "./state.ts";

export interface MemberCommandOptions {
  dir: string;
  host: string;
  stream: string;
  print(line: string): void;
  /** Stops a recorded process (SIGTERM, then SIGKILL after the grace period). */
  stop(record: ProcessRecord, graceMs: number): Promise<void>;
}

interface RunningCluster {
  state: ClusterState;
  layout: ClusterLayout & { storeMembers: StoreMemberLayout[] };
  pki: StorePki;
  credentials: ChannelCredentials;
  close(): void;
}

const CALL_TIMEOUT_MS = 15_000;

async function openCluster(o: MemberCommandOptions): Promise<RunningCluster> {
  const state = readState(o.dir);
  if (state === undefined || !state.processes.some((p) => p.role === "store" && ownedAndAlive(p))) {
    throw new Error(`no running cluster in ${o.dir}: run "npm run cluster -- up" first`);
  }
  const layout = readLayout(o.dir);
  const pki = await ensureStorePki(o.dir, o.host);
  const tls = grpcChannelCredentials({ caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile });
  const c: RunningCluster = { state, layout: { ...layout, storeMembers: layout.storeMembers ?? [] }, pki, credentials: tls.credentials, close: () => tls.close() };
  if (layout.storeMembers === undefined) {
    // A cluster started before the layout kept its members: the member list is the membership.
    const list = await throughAMember(c, (client) => client.unary("MemberList", {}, { deadline: Date.now() + CALL_TIMEOUT_MS })).catch((err: unknown) => {
      tls.close();
      throw err;
    });
    const port = (url: string | undefined) => Number(new URL(url ?? "https://x:0").port);
    c.layout.storeMembers = list.members.map((m) => ({ name: m.name, clientPort: port(m.clientURLs[0]), peerPort: port(m.peerURLs[0]) }));
  }
  return c;
}

/** Calls `fn` with a client of each live store member in turn (not `except`) until one answers. */
async function throughAMember<T>(c: RunningCluster, fn: (client: EtcdClient) => Promise<T>, except?: string): Promise<T> {
  let last: unknown = new Error("no running store member");
  for (const p of c.state.processes) {
    if (p.role !== "store" || p.name === except || !ownedAndAlive(p)) continue;
    const client = new EtcdClient(p.endpoint, {}, c.credentials);
    try {
      return await fn(client);
    } catch (err) {
      last = err;
    } finally {
      client.close();
    }
  }
  throw last;
}

/** The member's name, or (not started yet) the name the layout gives its peer URL. */
function memberName(c: RunningCluster, host: string, m: PbMember): string {
  if (m.name !== "") return m.name;
  return c.layout.storeMembers.find((l) => m.peerURLs.includes(peerUrl(host, l)))?.name ?? "";
}

function nextName(members: readonly StoreMemberLayout[]): string {
  const taken = members.map((m) => Number(/^store-(\d+)$/.exec(m.name)?.[1] ?? 0));
  return `store-${Math.max(0, ...taken) + 1}`;
}

export async function memberAdd(o: MemberCommandOptions): Promise<void> {
  const c = await openCluster(o);
  try {
    const member: StoreMemberLayout = { name: nextName(c.layout.storeMembers), clientPort: await freePort(o.host), peerPort: await freePort(o.host) };
    const url = peerUrl(o.host, member);
    const added = await throughAMember(c, (client) => client.unary("MemberAdd", { peerURLs: [url], isLearner: false }, { deadline: Date.now() + CALL_TIMEOUT_MS }));
    const id = String(added.member?.ID ?? "0");
    o.print(`Member ${BigInt(id).toString(16)} added to cluster as ${member.name} (${url})`);
    // etcdctl's ETCD_INITIAL_CLUSTER: every member of the answer by name, the new one included.
    const initialCluster = added.members
      .map((m) => `${m.ID === id ? member.name : memberName(c, o.host, m)}=${m.peerURLs[0]}`)
      .join(",");
    const record = spawnStoreMember({ dir: o.dir, host: o.host, stream: o.stream, redisUrl: c.state.outputs.redisUrl as string | undefined, pki: c.pki }, member, initialCluster, "existing");
    try {
      await waitForStore(record.endpoint, 60_000, undefined, c.credentials);
      await waitForMembers(record.endpoint, added.members.length, 30_000, c.credentials);
    } catch (err) {
      o.print(`${member.name} did not join (${err instanceof Error ? err.message : String(err)}); removing it again (log: ${record.log})`);
      await throughAMember(c, (client) => client.unary("MemberRemove", { ID: id }, { deadline: Date.now() + CALL_TIMEOUT_MS }), member.name).catch(() => undefined);
      await o.stop(record, 5000);
      await rm(join(o.dir, member.name), { recursive: true, force: true });
      throw err;
    }
    const lastStore = c.state.processes.findLastIndex((p) => p.role === "store");
    c.state.processes.splice(lastStore + 1, 0, record);
    c.state.outputs.storeEndpoints = c.state.processes.filter((p) => p.role === "store").map((p) => p.endpoint);
    await writeState(c.state);
    c.layout.storeMembers.push(member);
    writeLayout(o.dir, c.layout);
    o.print(`${member.name.padEnd(11)} https://${record.endpoint} (pid ${record.pid}); the store has ${added.members.length} members`);
  } finally {
    c.close();
  }
}

export async function memberRemove(o: MemberCommandOptions, target: string): Promise<void> {
  const c = await openCluster(o);
  try {
    const list = await throughAMember(c, (client) => client.unary("MemberList", {}, { deadline: Date.now() + CALL_TIMEOUT_MS }));
    const member = list.members.find((m) => BigInt(m.ID).toString(16) === target.toLowerCase() || memberName(c, o.host, m) === target);
    if (member === undefined) throw new Error(`no member ${target} in the store (members: ${list.members.map((m) => `${BigInt(m.ID).toString(16)} ${memberName(c, o.host, m)}`).join(", ")})`);
    if (list.members.length === 1) throw new Error(`${target} is the store's only member`);
    const name = memberName(c, o.host, member);
    const hex = BigInt(member.ID).toString(16);
    await throughAMember(c, (client) => client.unary("MemberRemove", { ID: member.ID }, { deadline: Date.now() + CALL_TIMEOUT_MS }), name);
    o.print(`Member ${hex} removed from cluster (${name})`);
    // The removed member stops on its own once it learns of its removal; stop it in any case.
    const record = c.state.processes.find((p) => p.role === "store" && p.name === name);
    if (record !== undefined) {
      await o.stop(record, 10_000);
      c.state.processes = c.state.processes.filter((p) => p !== record);
    }
    c.state.outputs.storeEndpoints = c.state.processes.filter((p) => p.role === "store").map((p) => p.endpoint);
    await writeState(c.state);
    c.layout.storeMembers = c.layout.storeMembers.filter((m) => m.name !== name);
    writeLayout(o.dir, c.layout);
    if (name !== "") await rm(join(o.dir, name), { recursive: true, force: true });
    o.print(`stopped ${name}; removed its data ${join(o.dir, name)}; the store has ${list.members.length - 1} members`);
  } finally {
    c.close();
  }
}
