/**
 * etcdserverpb.Maintenance: Status (answered locally, even without a leader, as
 * etcd does) and Alarm (this store raises no alarms: always none).
 */
import { sizedOf } from "./capabilities.ts";
import type { ServerContext } from "./context.ts";
import type { PbHeader } from "../../../shared/etcd/wire.ts";

/** etcd's default backend quota (2 GiB). */
const DB_SIZE_QUOTA = 2 * 1024 * 1024 * 1024;
/** Without a backend-reported size, the snapshot length is measured again after a change, at most this often. */
const SIZE_CACHE_MS = 1000;

export function maintenanceHandlers(ctx: ServerContext) {
  let sized: { at: number; revision: number; bytes: number } | undefined;
  const dbSize = (): number => {
    const backend = sizedOf(ctx.backend);
    if (backend !== undefined) return backend.dbSize();
    const now = ctx.options.now();
    const revision = ctx.backend.mvcc.currentRevision;
    if (sized === undefined || (sized.revision !== revision && now - sized.at > SIZE_CACHE_MS)) {
      sized = { at: now, revision, bytes: ctx.backend.mvcc.snapshot().length };
    }
    return sized.bytes;
  };
  return {
    async Status() {
      const s = ctx.backend.status();
      const size = dbSize();
      return {
        header: ctx.header(),
        version: ctx.options.version,
        dbSize: size,
        leader: s.leader.toString(),
        raftIndex: s.raftIndex,
        raftTerm: s.term,
        raftAppliedIndex: s.appliedIndex,
        errors: [] as string[],
        dbSizeInUse: size,
        isLearner: false,
        storageVersion: ctx.options.version,
        dbSizeQuota: DB_SIZE_QUOTA,
      };
    },

    async Alarm(): Promise<{ header: PbHeader; alarms: never[] }> {
      return { header: ctx.header(), alarms: [] };
    },
  };
}
