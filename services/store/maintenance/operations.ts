/**
 * The Maintenance operations beyond reading state, for one member's client API:
 * - space(): dbSize (allocated) and dbSizeInUse of the state (MvccStore.space);
 * - the quota (quota.ts), registered as a write check on the server context;
 * - alarm(): GET lists the raised alarms (by type, NONE: all); ACTIVATE and DEACTIVATE
 *   go through the log and answer with the alarm they changed;
 * - defragment(): allocated shrinks to in use, and a backend that persists snapshots
 *   writes one now without the compacted history, cuts its log to a new segment and
 *   deletes the segments and older snapshot files the new snapshot covers, so the data
 *   dir holds only what the compacted state needs (node/snapshots.ts);
 * - moveLeader(): on the leader, hands leadership to a voting member and waits until
 *   it leads (etcd's errors: not leader, bad leader transferee, transfer too long);
 * - the periodic corruption check (corrupt-check.ts) when configured.
 */
import { status, type ServerWritableStream } from "@grpc/grpc-js";
import type { AlarmMember, AlarmType, StoreRequest } from "../mvcc/types.ts";
import { isLeader, membershipOf } from "../server/capabilities.ts";
import type { ServerContext } from "../server/context.ts";
import { GrpcError, toServiceError } from "../server/grpc-errors.ts";
import type { Int64, PbAlarmRequest, WireEnum } from "../../../shared/etcd/wire.ts";
import { startCorruptCheck } from "./corrupt-check.ts";
import { fitsQuota, quotaCost } from "./quota.ts";

const ALARM_TYPES: readonly ("NONE" | AlarmType)[] = ["NONE", "NOSPACE", "CORRUPT"];
const ALARM_ACTIONS = ["GET", "ACTIVATE", "DEACTIVATE"] as const;
/** How long MoveLeader waits for the target to lead (etcd: the request timeout). */
const MOVE_LEADER_TIMEOUT_MS = 5000;

export const MaintenanceErrors = {
  badLeaderTransferee: () => new GrpcError(status.FAILED_PRECONDITION, "etcdserver: bad leader transferee"),
  leaderTransferTimeout: () => new GrpcError(status.UNAVAILABLE, "etcdserver: request timed out, leader transfer took too long"),
  notLeader: () => new GrpcError(status.FAILED_PRECONDITION, "etcdserver: not leader"),
};

/** What a replicated backend offers for maintenance (the Raft backend); found by duck typing. */
interface LeaderTransferBackend {
  transferLeadership(id: bigint): void;
}
interface SnapshotPersistingBackend {
  persistSnapshot(): Promise<void>;
}

function has<T extends object>(o: object, name: keyof T & string): o is T {
  return typeof Reflect.get(o, name) === "function";
}

function enumName<T extends string>(v: WireEnum | undefined, names: readonly T[], what: string): T {
  const name = typeof v === "number" ? names[v] : (v ?? names[0]);
  if (name === undefined || !names.includes(name as T)) throw new GrpcError(status.INVALID_ARGUMENT, `etcdserver: bad ${what} ${String(v)}`);
  return name as T;
}

function memberIdOf(v: Int64 | undefined): bigint {
  try {
    return BigInt(v ?? 0);
  } catch {
    throw new GrpcError(status.INVALID_ARGUMENT, `etcdserver: bad member id ${String(v)}`);
  }
}

export function pbAlarm(a: AlarmMember): { memberID: string; alarm: string } {
  return { memberID: a.memberId.toString(), alarm: a.alarm };
}

export class MaintenanceOperations {
  private corruptCheck: { stop(): void } | undefined;

  constructor(private readonly ctx: ServerContext) {
    ctx.writeChecks.push((request) => this.checkQuota(request));
  }

  get quotaBytes(): number {
    return this.ctx.options.quotaBackendBytes;
  }

  space(): { dbSize: number; dbSizeInUse: number } {
    const s = this.ctx.backend.mvcc.space();
    return { dbSize: s.allocated, dbSizeInUse: s.inUse };
  }

  /** Status.errors: no leader, and each raised alarm as etcd prints it. */
  alarmErrors(): string[] {
    const errors = this.ctx.backend.status().leader === 0n ? ["etcdserver: no leader"] : [];
    for (const a of this.ctx.backend.mvcc.alarms()) errors.push(`memberID:${a.memberId} alarm:${a.alarm} `);
    return errors;
  }

  private async checkQuota(request: StoreRequest): Promise<void> {
    const cost = quotaCost(request);
    if (fitsQuota(this.space().dbSize, cost, this.quotaBytes)) return;
    const memberId = this.ctx.backend.status().memberId;
    if (!this.ctx.backend.mvcc.alarms().some((a) => a.alarm === "NOSPACE")) {
      this.ctx.options.logger?.warn({ dbSize: this.space().dbSize, quota: this.quotaBytes }, "database space exceeded; raising NOSPACE");
      await this.ctx.propose({ type: "alarm", request: { action: "activate", memberId, alarm: "NOSPACE" } }).catch(() => undefined);
    }
    throw new GrpcError(status.RESOURCE_EXHAUSTED, "etcdserver: mvcc: database space exceeded");
  }

  async alarm(req: PbAlarmRequest): Promise<{ memberID: string; alarm: string }[]> {
    const action = enumName(req.action, ALARM_ACTIONS, "alarm action");
    const type = enumName(req.alarm, ALARM_TYPES, "alarm type");
    if (action === "GET") {
      return this.ctx.backend.mvcc
        .alarms()
        .filter((a) => type === "NONE" || a.alarm === type)
        .map(pbAlarm);
    }
    if (type === "NONE") return [];
    const { response } = await this.ctx.propose({
      type: "alarm",
      request: { action: action === "ACTIVATE" ? "activate" : "deactivate", memberId: memberIdOf(req.memberID), alarm: type },
    });
    return response.alarms.map(pbAlarm);
  }

  async defragment(): Promise<void> {
    const before = this.space();
    this.ctx.backend.mvcc.defragment();
    const backend = this.ctx.backend;
    if (has<SnapshotPersistingBackend>(backend, "persistSnapshot")) await backend.persistSnapshot();
    this.ctx.options.logger?.info({ before: before.dbSize, after: this.space().dbSize }, "defragmented");
  }

  async moveLeader(target: Int64 | undefined): Promise<void> {
    const backend = this.ctx.backend;
    const membership = membershipOf(backend);
    if (!has<LeaderTransferBackend>(backend, "transferLeadership") || membership === undefined) {
      throw new GrpcError(status.UNIMPLEMENTED, "etcdserver: MoveLeader is not supported by this store");
    }
    if (!isLeader(backend)) throw MaintenanceErrors.notLeader();
    const id = memberIdOf(target);
    const member = (await membership.memberList()).find((m) => BigInt(m.id) === id);
    if (member === undefined || member.isLearner) throw MaintenanceErrors.badLeaderTransferee();
    if (id === backend.status().memberId) return;
    backend.transferLeadership(id);
    const deadline = this.ctx.options.now() + MOVE_LEADER_TIMEOUT_MS;
    while (backend.status().leader !== id) {
      if (this.ctx.options.now() > deadline) throw MaintenanceErrors.leaderTransferTimeout();
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  start(): void {
    const interval = this.ctx.options.corruptCheckTimeMs;
    if (interval <= 0 || this.corruptCheck !== undefined) return;
    this.corruptCheck = startCorruptCheck(
      {
        ctx: this.ctx,
        raise: async (memberId) => {
          await this.ctx.propose({ type: "alarm", request: { action: "activate", memberId, alarm: "CORRUPT" } });
        },
      },
      interval,
    );
  }

  stop(): void {
    this.corruptCheck?.stop();
    this.corruptCheck = undefined;
  }

  /** Ends a server stream with the error as etcd's status. */
  failStream(call: ServerWritableStream<unknown, unknown>, err: unknown): void {
    this.ctx.options.logger?.warn({ err: String(err) }, "snapshot stream failed");
    const e = toServiceError(err);
    call.destroy(Object.assign(new Error(e.details ?? "snapshot failed"), e));
  }
}
