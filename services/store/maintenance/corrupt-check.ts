/**
 * The periodic corruption check (etcd's --experimental-corrupt-check-time): while this
 * member leads, every interval it hashes its key space up to its current revision
 * (hash.ts) and asks every other member for HashKV at that revision over the client
 * API. A member that answers for the same compact revision with another hash holds
 * different data for the same history: the leader raises the CORRUPT alarm for it
 * through the log, and every member then refuses writes ("etcdserver: corrupt
 * cluster") until an operator clears it. Members that cannot answer (down, behind the
 * revision, compacted further) are skipped this round.
 */
import { EtcdClient } from "../../../shared/etcd/client.ts";
import type { ServerContext } from "../server/context.ts";
import { membershipOf } from "../server/capabilities.ts";
import { isLeader } from "../server/capabilities.ts";
import { hashKV } from "./hash.ts";

export interface CorruptCheckDeps {
  ctx: ServerContext;
  /** Raises CORRUPT for a member (through the log). */
  raise(memberId: bigint): Promise<void>;
}

/** One round; resolves with the ids of the members found to differ. */
export async function checkPeers(deps: CorruptCheckDeps, timeoutMs = 2000): Promise<bigint[]> {
  const { ctx } = deps;
  const membership = membershipOf(ctx.backend);
  if (membership === undefined || !isLeader(ctx.backend)) return [];
  const own = hashKV(ctx.backend.mvcc.state(), 0);
  const self = ctx.backend.status().memberId;
  const peers = (await membership.memberList()).filter((m) => BigInt(m.id) !== self && m.clientUrls.length > 0);
  const differing: bigint[] = [];
  await Promise.all(
    peers.map(async (peer) => {
      const client = new EtcdClient(peer.clientUrls[0]);
      try {
        const res = await client.unary("HashKV", { revision: own.revision }, { deadline: Date.now() + timeoutMs });
        if (Number(res.compact_revision) === own.compactRevision && res.hash >>> 0 !== own.hash) differing.push(BigInt(peer.id));
      } catch {
        // Down, lagging or compacted further: nothing to compare this round.
      } finally {
        client.close();
      }
    }),
  );
  for (const id of differing) {
    ctx.options.logger?.error({ member: id.toString(16), revision: own.revision, hash: own.hash }, "corruption check: member's hash differs from the leader's; raising CORRUPT");
    await deps.raise(id);
  }
  return differing;
}

/** Runs checkPeers every intervalMs (never overlapping); stop() ends it. */
export function startCorruptCheck(deps: CorruptCheckDeps, intervalMs: number): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    checkPeers(deps)
      .catch((err: unknown) => deps.ctx.options.logger?.warn({ err: String(err) }, "corruption check failed"))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
