/**
 * etcdserverpb.KV. Range is linearizable (leader check + read barrier) unless
 * `serializable`, which answers from the local state machine at once. Every write
 * goes through the log; a txn that only reads is served like a linearizable Range.
 */
import type { ServerContext } from "./context.ts";
import { deleteRequest, num, pbDelete, pbPut, pbRange, pbTxn, putRequest, rangeRequest, txnIsReadOnly, txnRequest } from "./convert.ts";
import { Errors } from "./grpc-errors.ts";
import type {
  PbCompactionRequest,
  PbDeleteRangeRequest,
  PbDeleteRangeResponse,
  PbHeader,
  PbPutRequest,
  PbPutResponse,
  PbRangeRequest,
  PbRangeResponse,
  PbTxnRequest,
  PbTxnResponse,
} from "../../../shared/etcd/wire.ts";

export function kvHandlers(ctx: ServerContext) {
  const mvcc = () => ctx.backend.mvcc;
  return {
    async Range(req: PbRangeRequest): Promise<PbRangeResponse> {
      const r = rangeRequest(req);
      if (req.serializable !== true) await ctx.linearizable();
      const res = mvcc().range(r);
      return { header: ctx.header(res.revision), ...pbRange(res) };
    },

    async Put(req: PbPutRequest): Promise<PbPutResponse> {
      const { res, response } = await ctx.propose({ type: "put", request: putRequest(req) });
      return { header: ctx.header(res.revision), ...pbPut(response) };
    },

    async DeleteRange(req: PbDeleteRangeRequest): Promise<PbDeleteRangeResponse> {
      const { res, response } = await ctx.propose({ type: "deleteRange", request: deleteRequest(req) });
      return { header: ctx.header(res.revision), ...pbDelete(response) };
    },

    async Txn(req: PbTxnRequest): Promise<PbTxnResponse> {
      const t = txnRequest(req, { maxTxnOps: ctx.options.maxTxnOps });
      if (txnIsReadOnly(t)) {
        await ctx.linearizable();
        // A txn without writes changes nothing: evaluating it locally is a read.
        const applied = mvcc().txn(t);
        const header = ctx.header(applied.revision);
        return pbTxn(applied.response, header);
      }
      const { res, response } = await ctx.propose({ type: "txn", request: t });
      return pbTxn(response, ctx.header(res.revision));
    },

    async Compact(req: PbCompactionRequest): Promise<{ header: PbHeader }> {
      const revision = num(req.revision, "revision");
      if (revision <= 0) throw Errors.compacted();
      const { res } = await ctx.propose({ type: "compact", request: { revision } });
      return { header: ctx.header(res.revision) };
    },
  };
}
