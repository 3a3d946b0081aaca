/**
 * A failed etcd v3 call as every client sees it: the gRPC status code and etcd's
 * message (rpctypes wording, e.g. "etcdserver: mvcc: required revision has been
 * compacted"), and the endpoint that answered ("" in process).
 */
import { status } from "@grpc/grpc-js";

export { status as GrpcStatus } from "@grpc/grpc-js";

export class EtcdCallError extends Error {
  constructor(
    readonly code: status,
    readonly details: string,
    readonly endpoint: string,
  ) {
    super(`store: ${details}`);
    this.name = "EtcdCallError";
  }
}

/** etcd's messages that clients recognise (clientv3 matches on the text). */
export const ETCD_MESSAGES = {
  compacted: "etcdserver: mvcc: required revision has been compacted",
  futureRevision: "etcdserver: mvcc: required revision is a future revision",
  noLeader: "etcdserver: no leader",
} as const;

export function isCompacted(err: EtcdCallError): boolean {
  return err.code === status.OUT_OF_RANGE && /compacted/.test(err.details);
}

export function isFutureRevision(err: EtcdCallError): boolean {
  return err.code === status.OUT_OF_RANGE && /future revision/.test(err.details);
}
