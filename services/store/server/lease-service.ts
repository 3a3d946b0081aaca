/**
 * etcdserverpb.Lease. Grant and Revoke go through the log (the server picks a
 * random positive id when the client sends 0, and raises TTLs to the minimum);
 * KeepAlive and TimeToLive are answered by the leader's LeaseKeeper, forwarded
 * there from followers.
 */
import { randomBytes } from "node:crypto";
import type { BidiCall } from "./bidi-call.ts";
import type { ServerContext } from "./context.ts";
import { leaseId, num } from "./convert.ts";
import { GrpcError, toServiceError } from "./grpc-errors.ts";
import type { LeaderForwarder } from "./lease-forward.ts";
import type { LeaseKeeper } from "./lease-keeper.ts";
import type { Int64, PbHeader } from "../../../shared/etcd/wire.ts";

interface KeepAliveRequest {
  ID: Int64;
}
interface KeepAliveResponse {
  header: PbHeader;
  ID: Int64;
  TTL: Int64;
}

/** A random id in [1, 2^63): positive like etcd's, so every client prints it the same. */
function randomLeaseId(): bigint {
  const id = randomBytes(8).readBigUInt64BE() & ((1n << 63n) - 1n);
  return id === 0n ? 1n : id;
}

export function leaseHandlers(ctx: ServerContext, keeper: LeaseKeeper, forwarder: LeaderForwarder) {
  return {
    async LeaseGrant(req: { TTL: Int64; ID: Int64 }): Promise<{ header: PbHeader; ID: string; TTL: number; error: string }> {
      const ttl = Math.max(num(req.TTL, "TTL"), ctx.options.minLeaseTtl);
      const requested = leaseId(req.ID);
      for (let attempt = 0; ; attempt++) {
        const id = requested !== 0n ? requested : randomLeaseId();
        try {
          const { res } = await ctx.propose({ type: "leaseGrant", request: { id, ttl } });
          keeper.granted(id, ttl);
          return { header: ctx.header(res.revision), ID: id.toString(), TTL: ttl, error: "" };
        } catch (err) {
          // A collision of a random id is retried with another one.
          if (requested !== 0n || attempt >= 3 || !(err instanceof GrpcError) || !/already exists/.test(err.message)) throw err;
        }
      }
    },

    async LeaseRevoke(req: { ID: Int64 }): Promise<{ header: PbHeader }> {
      const id = leaseId(req.ID);
      const { res } = await ctx.propose({ type: "leaseRevoke", request: { id } });
      keeper.revoked(id);
      return { header: ctx.header(res.revision) };
    },

    LeaseKeepAlive(call: BidiCall<KeepAliveRequest, KeepAliveResponse>): void {
      let closed = false;
      const fail = (err: unknown) => {
        if (closed) return;
        closed = true;
        call.emit("error", toServiceError(err));
      };
      call.on("data", (req: KeepAliveRequest) => {
        void (async () => {
          try {
            const id = leaseId(req.ID);
            const ttl = keeper.isLeading ? keeper.renew(id) : await forwarder.keepAlive(id);
            if (!closed) call.write({ header: ctx.header(), ID: id.toString(), TTL: ttl });
          } catch (err) {
            fail(err);
          }
        })();
      });
      const end = () => {
        if (closed) return;
        closed = true;
        call.end();
      };
      call.on("end", end);
      call.on("cancelled", () => {
        closed = true;
      });
      call.on("error", () => {
        closed = true;
      });
    },

    async LeaseTimeToLive(req: { ID: Int64; keys: boolean }) {
      const id = leaseId(req.ID);
      if (!keeper.isLeading) {
        const r = await forwarder.timeToLive(id, req.keys === true);
        return { header: ctx.header(), ID: r.ID, TTL: r.TTL, grantedTTL: r.grantedTTL, keys: r.keys };
      }
      await ctx.linearizable();
      const lease = ctx.backend.mvcc.lease(id);
      const remaining = lease === undefined ? -1 : keeper.remaining(id);
      if (lease === undefined || remaining < 0) return { header: ctx.header(), ID: id.toString(), TTL: -1, grantedTTL: 0, keys: [] };
      return { header: ctx.header(), ID: id.toString(), TTL: remaining, grantedTTL: lease.ttl, keys: req.keys === true ? lease.keys : [] };
    },

    async LeaseLeases(): Promise<{ header: PbHeader; leases: Array<{ ID: string }> }> {
      await ctx.linearizable();
      return { header: ctx.header(), leases: ctx.backend.mvcc.leases().map((l) => ({ ID: l.id.toString() })) };
    },
  };
}
