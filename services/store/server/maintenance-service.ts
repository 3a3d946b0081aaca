/**
 * etcdserverpb.Maintenance as etcd serves it:
 * - Status: answered locally, even without a leader; dbSize and dbSizeInUse are the
 *   sizes of the state (services/store/maintenance/space.ts);
 * - Snapshot: a backup image of this member's state, streamed with its sha256
 *   (maintenance/snapshot-stream.ts);
 * - Hash / HashKV: hashes of this member's state (maintenance/hash.ts);
 * - Defragment, MoveLeader, Alarm: maintenance/operations.ts.
 */
import type { ServerWritableStream } from "@grpc/grpc-js";
import { hashAll, hashKV } from "../maintenance/hash.ts";
import type { MaintenanceOperations } from "../maintenance/operations.ts";
import { streamSnapshot } from "../maintenance/snapshot-stream.ts";
import type { ServerContext } from "./context.ts";
import { num } from "./convert.ts";
import type { Int64, PbAlarmRequest, PbSnapshotResponse } from "../../../shared/etcd/wire.ts";

export function maintenanceHandlers(ctx: ServerContext, ops: MaintenanceOperations) {
  return {
    async Status() {
      const s = ctx.backend.status();
      const space = ops.space();
      return {
        header: ctx.header(),
        version: ctx.options.version,
        dbSize: space.dbSize,
        leader: s.leader.toString(),
        raftIndex: s.raftIndex,
        raftTerm: s.term,
        raftAppliedIndex: s.appliedIndex,
        errors: ops.alarmErrors(),
        dbSizeInUse: space.dbSizeInUse,
        isLearner: false,
        storageVersion: ctx.options.version,
        dbSizeQuota: ops.quotaBytes,
      };
    },

    async Alarm(req: PbAlarmRequest) {
      return { header: ctx.header(), alarms: await ops.alarm(req) };
    },

    async Hash() {
      return { header: ctx.header(), hash: hashAll(ctx.backend.mvcc.state()) };
    },

    async HashKV(req: { revision?: Int64 }) {
      const h = hashKV(ctx.backend.mvcc.state(), num(req.revision, "revision"));
      return { header: ctx.header(), hash: h.hash, compact_revision: h.compactRevision, hash_revision: h.revision };
    },

    async Defragment() {
      await ops.defragment();
      return { header: ctx.header() };
    },

    async MoveLeader(req: { targetID?: Int64 }) {
      await ops.moveLeader(req.targetID);
      return { header: ctx.header() };
    },

    /** Server streaming: takes the call (see STREAMING_METHODS). */
    Snapshot(call: ServerWritableStream<unknown, PbSnapshotResponse>): void {
      streamSnapshot(ctx, call).catch((err: unknown) => ops.failStream(call, err));
    },
  };
}
