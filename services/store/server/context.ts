/**
 * What every service of the client API shares: the backend, the options, response
 * headers, and the guarded paths to the log (size limit, leader check) and to
 * linearizable reads (leader check, read barrier).
 */
import type { ChannelCredentials } from "@grpc/grpc-js";
import type { Logger } from "pino";
import { encodeRequest, type StoreRequest, type StoreResponse, type StoreResult } from "../mvcc/index.ts";
import type { StoreBackend } from "./backend.ts";
import { Errors, fromStoreError } from "./grpc-errors.ts";
import type { PbHeader } from "../../../shared/etcd/wire.ts";

export interface GrpcServerOptions {
  /** Largest encoded write accepted (etcd's --max-request-bytes; default 1.5 MiB). */
  maxRequestBytes?: number;
  /** Most ops per txn branch (etcd's --max-txn-ops; default 128). */
  maxTxnOps?: number;
  /** Version reported by Maintenance Status (default "3.5.0"). */
  version?: string;
  /** This node, for MemberList when the backend has no membership. */
  name?: string;
  clientUrls?: string[];
  peerUrls?: string[];
  /** Interval of watch progress notifications (etcd: 10 minutes). */
  progressNotifyIntervalMs?: number;
  /** Shortest lease TTL in seconds; shorter grants are raised to it (etcd: from the election timeout). */
  minLeaseTtl?: number;
  /** How often the leader checks lease deadlines (default 500 ms). */
  leaseCheckIntervalMs?: number;
  /** Space quota (etcd's --quota-backend-bytes; default 2 GiB): over it, writes raise NOSPACE. */
  quotaBackendBytes?: number;
  /** Interval of the leader's corruption check across members (etcd's --experimental-corrupt-check-time); 0: off. */
  corruptCheckTimeMs?: number;
  logger?: Logger;
  now?: () => number;
  /** Credentials of the calls that followers forward to the leader's client API (default plaintext). */
  forwardCredentials?: ChannelCredentials;
}

export type ResolvedOptions = Required<Omit<GrpcServerOptions, "logger" | "forwardCredentials">> & {
  logger: Logger | undefined;
  forwardCredentials: ChannelCredentials | undefined;
};

export const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;
/** etcd lets gRPC receive this much above the request limit, then answers "request is too large". */
export const GRPC_OVERHEAD_BYTES = 512 * 1024;

export function resolveOptions(o: GrpcServerOptions): ResolvedOptions {
  return {
    maxRequestBytes: o.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
    maxTxnOps: o.maxTxnOps ?? 128,
    version: o.version ?? "3.5.0",
    name: o.name ?? "default",
    clientUrls: o.clientUrls ?? [],
    peerUrls: o.peerUrls ?? [],
    progressNotifyIntervalMs: o.progressNotifyIntervalMs ?? 10 * 60 * 1000,
    minLeaseTtl: o.minLeaseTtl ?? 2,
    leaseCheckIntervalMs: o.leaseCheckIntervalMs ?? 500,
    quotaBackendBytes: o.quotaBackendBytes ?? 2 * 1024 * 1024 * 1024,
    corruptCheckTimeMs: o.corruptCheckTimeMs ?? 0,
    logger: o.logger,
    now: o.now ?? Date.now,
    forwardCredentials: o.forwardCredentials,
  };
}

type Successful = Exclude<StoreResult, { type: "error" }>;
export type ResultOf<T extends StoreResult["type"]> = Extract<Successful, { type: T }> extends { response: infer R } ? R : never;

export class ServerContext {
  /** Checks a write must pass before it is proposed (the space quota); they throw to refuse it. */
  readonly writeChecks: Array<(request: StoreRequest) => Promise<void>> = [];

  constructor(
    readonly backend: StoreBackend,
    readonly options: ResolvedOptions,
  ) {}

  /** The decimal forms of the last cluster and member ids seen (they never change while a member runs). */
  private ids = { clusterId: -1n, memberId: -1n, cluster: "", member: "" };

  /** A response header at the given revision (default: the current one). */
  header(revision?: number): PbHeader {
    const s = this.backend.status();
    const ids = this.ids;
    if (ids.clusterId !== s.clusterId || ids.memberId !== s.memberId) this.ids = { clusterId: s.clusterId, memberId: s.memberId, cluster: s.clusterId.toString(), member: s.memberId.toString() };
    return {
      cluster_id: this.ids.cluster,
      member_id: this.ids.member,
      revision: revision ?? this.backend.mvcc.currentRevision,
      raft_term: s.term,
    };
  }

  private requireLeader(): void {
    if (this.backend.status().leader === 0n) throw Errors.noLeader();
  }

  /** Waits until a linearizable read may be served from the local state machine. */
  async linearizable(): Promise<void> {
    this.requireLeader();
    await this.backend.readBarrier();
  }

  /**
   * Proposes a write and returns its typed result. Oversized requests, a missing
   * leader and store errors become etcd's gRPC errors.
   */
  async propose<T extends StoreRequest["type"]>(request: Extract<StoreRequest, { type: T }>): Promise<{ res: StoreResponse; response: ResultOf<T> }> {
    const encoded = encodeRequest(request);
    if (encoded.length > this.options.maxRequestBytes) throw Errors.requestTooLarge();
    this.requireLeader();
    for (const check of this.writeChecks) await check(request);
    const res = await this.backend.propose(request, encoded);
    const result = res.result;
    if (result.type === "error") throw fromStoreError(result.error.code, result.error.message);
    if (result.type !== request.type) throw new Error(`store answered a ${request.type} with a ${result.type} result`);
    return { res, response: result.response as ResultOf<T> };
  }
}
