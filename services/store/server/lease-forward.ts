/**
 * Followers forward lease keep-alives and time-to-live queries to the leader's
 * client API, since only the leader holds deadlines (etcd forwards them too). The
 * leader's address comes from the backend's member list (its client URLs). Without
 * membership, or with no known leader, calls fail with "etcdserver: no leader".
 */
import type { ChannelCredentials } from "@grpc/grpc-js";
import { EtcdClient } from "../../../shared/etcd/client.ts";
import type { EtcdStream } from "../../../shared/etcd/methods.ts";
import type { PbLeaseKeepAliveRequest, PbLeaseKeepAliveResponse, PbLeaseTimeToLiveResponse } from "../../../shared/etcd/wire.ts";
import type { StoreBackend } from "./backend.ts";
import { membershipOf } from "./capabilities.ts";
import { Errors, GrpcError } from "./grpc-errors.ts";
import { grpcTarget } from "../../../shared/etcd/proto.ts";

export type TimeToLiveReply = PbLeaseTimeToLiveResponse;

const FORWARD_TIMEOUT_MS = 5000;

export class LeaderForwarder {
  private client: EtcdClient | undefined;
  private target: string | undefined;
  private stream: EtcdStream<PbLeaseKeepAliveRequest, PbLeaseKeepAliveResponse> | undefined;
  private readonly waiting = new Map<string, Array<{ resolve: (ttl: number) => void; reject: (err: Error) => void }>>();

  /** `credentials`: TLS towards the leader's client URL (default plaintext). */
  constructor(
    private readonly backend: StoreBackend,
    private readonly credentials?: ChannelCredentials,
  ) {}

  private async leaderTarget(): Promise<string> {
    const membership = membershipOf(this.backend);
    const leader = this.backend.status().leader;
    if (membership === undefined || leader === 0n) throw Errors.noLeader();
    const members = await membership.memberList();
    const url = members.find((m) => BigInt(m.id) === leader)?.clientUrls[0];
    if (url === undefined) throw Errors.noLeader();
    return grpcTarget(url);
  }

  private async leaseClient(): Promise<EtcdClient> {
    const target = await this.leaderTarget();
    if (this.client === undefined || this.target !== target) {
      this.reset(Errors.leaderChanged());
      this.client?.close();
      this.client = new EtcdClient(target, {}, this.credentials);
      this.target = target;
    }
    return this.client;
  }

  private reset(err: Error): void {
    this.stream?.cancel();
    this.stream = undefined;
    for (const waiters of this.waiting.values()) for (const w of waiters) w.reject(err);
    this.waiting.clear();
  }

  async keepAlive(id: bigint): Promise<number> {
    const client = await this.leaseClient();
    if (this.stream === undefined) {
      const stream = client.stream("LeaseKeepAlive");
      stream.on("data", (res) => {
        const queue = this.waiting.get(String(res.ID));
        queue?.shift()?.resolve(Number(res.TTL));
        if (queue !== undefined && queue.length === 0) this.waiting.delete(String(res.ID));
      });
      stream.on("error", (err) => {
        if (this.stream === stream) this.reset(new GrpcError(Errors.leaderChanged().code, err.message));
      });
      stream.on("end", () => {
        if (this.stream === stream) this.reset(Errors.leaderChanged());
      });
      this.stream = stream;
    }
    const key = id.toString();
    const reply = new Promise<number>((resolve, reject) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push({ resolve, reject });
      this.waiting.set(key, queue);
    });
    this.stream.write({ ID: key });
    try {
      return await withTimeout(reply);
    } catch (err) {
      // A lost reply would pair later replies with the wrong waiters: start over.
      this.reset(err as Error);
      throw err;
    }
  }

  async timeToLive(id: bigint, keys: boolean): Promise<TimeToLiveReply> {
    const client = await this.leaseClient();
    try {
      return await client.unary("LeaseTimeToLive", { ID: id.toString(), keys }, { deadline: Date.now() + FORWARD_TIMEOUT_MS });
    } catch (err) {
      const e = err as { code?: number; details?: string };
      throw new GrpcError(e.code ?? Errors.timeout().code, e.details ?? "etcdserver: request timed out");
    }
  }

  close(): void {
    this.reset(Errors.stopped());
    this.client?.close();
    this.client = undefined;
  }
}

async function withTimeout<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Errors.timeout()), FORWARD_TIMEOUT_MS);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
