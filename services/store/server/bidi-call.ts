/**
 * What the streaming handlers (Watch, LeaseKeepAlive) use of a bidirectional call:
 * the subset of grpc-js's ServerDuplexStream that the in-process call (../embedded.ts)
 * also provides. Emitting "error" on the call ends it with that error at the client.
 */
export interface BidiCall<Req, Res> {
  on(event: "data", listener: (req: Req) => void): unknown;
  on(event: "end" | "cancelled" | "close" | "drain", listener: () => void): unknown;
  on(event: "error", listener: (err: unknown) => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
  emit(event: "error", err: unknown): boolean;
  write(res: Res): unknown;
  end(): unknown;
  readonly writableLength: number;
  readonly writableEnded: boolean;
}
