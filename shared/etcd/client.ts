/**
 * The one etcd v3 gRPC client: one member (host:port or URL), every method of the
 * table in methods.ts typed. Unary calls go over a lean HTTP/2 channel of our own
 * (http2-channel.ts: same wire protocol, TLS and status mapping as grpc-js, a fraction
 * of its per-call cost); the bidirectional streams over a @grpc/grpc-js channel,
 * opened on the first stream. Both use the protobufjs codecs of proto.ts; Range and
 * Txn requests are encoded, and their responses decoded, without proto-loader's copies
 * where they can be (lean-encode.ts, lean-decode.ts).
 * Calls with a small answer (multiplexable.ts) share one stream per connection where
 * the server has the call multiplexer (our store; etcd has none: then each call is a
 * stream of its own).
 * Errors reject as EtcdCallError with the gRPC code and etcd's message. Failover
 * across members is the caller's (the apiserver's endpoint pool); this client only connects.
 */
import { Client, credentials, Metadata, status, type ChannelCredentials, type ChannelOptions, type ClientDuplexStream } from "@grpc/grpc-js";
import { EtcdCallError } from "./errors.ts";
import {
  METHOD_SERVICES,
  type EtcdApi,
  type EtcdCallOptions,
  type EtcdStream,
  type StreamName,
  type StreamRequest,
  type StreamResponse,
  type UnaryName,
  type UnaryRequest,
  type UnaryResponse,
} from "./methods.ts";
import { Http2UnaryChannel } from "./http2-channel.ts";
import { leanDecode } from "./lean-decode.ts";
import { leanEncode } from "./lean-encode.ts";
import { multiplexable } from "./multiplexable.ts";
import { grpcTarget, methodDefinition } from "./proto.ts";

/** Channel option: 0 keeps every unary call on a stream of its own (default: small answers share the call multiplexer where the server has one). */
export const CALL_MUX_OPTION = "store.call_mux";

/** Channel options every store client uses unless overridden: no message size limits. */
const DEFAULT_CHANNEL_OPTIONS: ChannelOptions = {
  "grpc.max_receive_message_length": -1,
  "grpc.max_send_message_length": -1,
};

type GrpcFailure = Error & { code?: number; details?: string };

function callError(err: GrpcFailure, endpoint: string): EtcdCallError {
  return new EtcdCallError(err.code ?? status.UNKNOWN, err.details ?? err.message, endpoint);
}

/** A client stream with errors turned into EtcdCallError. */
class ClientStream<Req, Res> implements EtcdStream<Req, Res> {
  constructor(
    private readonly call: ClientDuplexStream<Req, Res>,
    private readonly endpoint: string,
  ) {}

  write(req: Req): void {
    this.call.write(req);
  }

  on(event: "data", listener: (res: Res) => void): this;
  on(event: "error", listener: (err: Error) => void): this;
  on(event: "end", listener: () => void): this;
  on(event: "data" | "error" | "end", listener: ((res: Res) => void) | ((err: Error) => void) | (() => void)): this {
    if (event === "error") {
      const l = listener as (err: Error) => void;
      this.call.on("error", (err: GrpcFailure) => l(callError(err, this.endpoint)));
    } else this.call.on(event, listener);
    return this;
  }

  cancel(): void {
    this.call.cancel();
  }
}

function numberOption(options: ChannelOptions, key: string): number | undefined {
  const v: unknown = options[key];
  return typeof v === "number" ? v : undefined;
}

export class EtcdClient implements EtcdApi {
  /** The gRPC target (host:port). */
  readonly endpoint: string;
  private readonly unaryChannel: Http2UnaryChannel;
  private streamClient: Client | undefined;
  private readonly options: ChannelOptions;

  /**
   * `channelCredentials`: TLS (shared/tls/grpc-credentials.ts); default plaintext.
   * `options`: grpc-js channel options; the unary channel reads its reconnect backoff
   * ("grpc.initial_reconnect_backoff_ms", "grpc.max_reconnect_backoff_ms") and
   * CALL_MUX_OPTION (0: never use the server's call multiplexer).
   */
  constructor(
    endpoint: string,
    options: ChannelOptions = {},
    private readonly channelCredentials: ChannelCredentials = credentials.createInsecure(),
  ) {
    this.endpoint = grpcTarget(endpoint);
    this.options = { ...DEFAULT_CHANNEL_OPTIONS, ...options };
    this.unaryChannel = new Http2UnaryChannel(this.endpoint, channelCredentials, {
      initialReconnectBackoffMs: numberOption(options, "grpc.initial_reconnect_backoff_ms"),
      maxReconnectBackoffMs: numberOption(options, "grpc.max_reconnect_backoff_ms"),
      callMux: numberOption(options, CALL_MUX_OPTION) !== 0,
    });
  }

  async unary<M extends UnaryName>(method: M, req: UnaryRequest<M>, opts: EtcdCallOptions = {}): Promise<UnaryResponse<M>> {
    const def = methodDefinition(METHOD_SERVICES[method], method);
    const message = leanEncode(method, req) ?? def.requestSerialize(req);
    const body = await this.unaryChannel.call(def.path, message, opts.deadline, multiplexable(method, req));
    if (body === undefined) throw new EtcdCallError(status.INTERNAL, `no response to ${method}`, this.endpoint);
    try {
      return leanDecode(method, body) ?? (def.responseDeserialize(body) as UnaryResponse<M>);
    } catch (err) {
      throw new EtcdCallError(status.INTERNAL, `Response message parsing error: ${(err as Error).message}`, this.endpoint);
    }
  }

  stream<M extends StreamName>(method: M): EtcdStream<StreamRequest<M>, StreamResponse<M>> {
    const def = methodDefinition(METHOD_SERVICES[method], method);
    this.streamClient ??= new Client(this.endpoint, this.channelCredentials, this.options);
    const call = this.streamClient.makeBidiStreamRequest<StreamRequest<M>, StreamResponse<M>>(
      def.path,
      (r) => def.requestSerialize(r),
      (buf) => def.responseDeserialize(buf) as StreamResponse<M>,
      new Metadata(),
    );
    return new ClientStream(call, this.endpoint);
  }

  /** Unary calls sent over the server's call multiplexer so far. */
  get multiplexedCalls(): number {
    return this.unaryChannel.multiplexed;
  }

  /** Resolves once the unary channel is connected (rejects after the deadline). */
  waitForReady(deadline: number): Promise<void> {
    return this.unaryChannel.waitForReady(deadline);
  }

  close(): void {
    this.unaryChannel.close();
    this.streamClient?.close();
  }
}
