/**
 * etcdserverpb.Cluster: delegates to the backend's membership when it has one.
 * Without it (a single unreplicated node) MemberList describes this node from the
 * server options and the changing RPCs are UNIMPLEMENTED. MemberUpdate is not
 * served (peer URLs are fixed at start).
 */
import { membershipOf, type MemberInfo } from "./capabilities.ts";
import type { ServerContext } from "./context.ts";
import { Errors, invalidArgument, unimplemented } from "./grpc-errors.ts";
import type { Int64, PbHeader, PbMember } from "../../../shared/etcd/wire.ts";

function pbMember(m: MemberInfo): PbMember {
  return { ID: String(m.id), name: m.name, peerURLs: m.peerUrls, clientURLs: m.clientUrls, isLearner: m.isLearner };
}

function memberId(v: Int64 | undefined): bigint {
  try {
    const id = BigInt(v ?? 0);
    if (id <= 0n || id >= 1n << 64n) throw new Error();
    return id;
  } catch {
    throw Errors.memberNotFound();
  }
}

function validUrls(urls: readonly string[] | undefined): string[] {
  const out = [...(urls ?? [])];
  if (out.length === 0) throw invalidArgument("member peer URLs are not provided");
  for (const u of out) {
    try {
      new URL(u);
    } catch {
      throw invalidArgument(`bad peer URL ${u}`);
    }
  }
  return out;
}

export function clusterHandlers(ctx: ServerContext) {
  const membership = () => membershipOf(ctx.backend);
  const self = (): MemberInfo => ({
    id: ctx.backend.status().memberId,
    name: ctx.options.name,
    peerUrls: ctx.options.peerUrls,
    clientUrls: ctx.options.clientUrls,
    isLearner: false,
  });
  const list = async (): Promise<PbMember[]> => {
    const m = membership();
    return (m === undefined ? [self()] : await m.memberList()).map(pbMember);
  };
  return {
    async MemberList(req: { linearizable?: boolean }): Promise<{ header: PbHeader; members: PbMember[] }> {
      if (req.linearizable === true) await ctx.linearizable();
      return { header: ctx.header(), members: await list() };
    },

    async MemberAdd(req: { peerURLs: string[]; isLearner: boolean }) {
      const m = membership();
      if (m === undefined) throw unimplemented("MemberAdd");
      const added = await m.memberAdd(validUrls(req.peerURLs), req.isLearner === true);
      return { header: ctx.header(), member: pbMember(added.member), members: added.members.map(pbMember) };
    },

    async MemberRemove(req: { ID: Int64 }) {
      const m = membership();
      if (m === undefined) throw unimplemented("MemberRemove");
      return { header: ctx.header(), members: (await m.memberRemove(memberId(req.ID))).map(pbMember) };
    },

    async MemberPromote(req: { ID: Int64 }) {
      const m = membership();
      if (m === undefined) throw unimplemented("MemberPromote");
      return { header: ctx.header(), members: (await m.memberPromote(memberId(req.ID))).map(pbMember) };
    },

    async MemberUpdate(): Promise<never> {
      throw unimplemented("MemberUpdate");
    },
  };
}
