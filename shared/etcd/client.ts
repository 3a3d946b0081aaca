/**
 * The one etcd v3 gRPC client: one member (host:port or URL), every method of the
 * table in methods.ts typed, over a single @grpc/grpc-js channel. Errors reject as
 * EtcdCallError with the gRPC code and etcd's message. Failover across members is
 * the caller's (the apiserver's endpoint pool); this client only connects.
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
import { grpcTarget, methodDefinition } from "./proto.ts";

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

export class EtcdClient implements EtcdApi {
  /** The gRPC target (host:port). */
  readonly endpoint: string;
  private readonly client: Client;

  /** `channelCredentials`: TLS (shared/tls/grpc-credentials.ts); default plaintext. */
  constructor(endpoint: string, options: ChannelOptions = {}, channelCredentials: ChannelCredentials = credentials.createInsecure()) {
    this.endpoint = grpcTarget(endpoint);
    this.client = new Client(this.endpoint, channelCredentials, { ...DEFAULT_CHANNEL_OPTIONS, ...options });
  }

  unary<M extends UnaryName>(method: M, req: UnaryRequest<M>, opts: EtcdCallOptions = {}): Promise<UnaryResponse<M>> {
    const def = methodDefinition(METHOD_SERVICES[method], method);
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest<UnaryRequest<M>, UnaryResponse<M>>(
        def.path,
        (r) => def.requestSerialize(r),
        (buf) => def.responseDeserialize(buf) as UnaryResponse<M>,
        req,
        new Metadata(),
        opts.deadline === undefined ? {} : { deadline: opts.deadline },
        (err, res) => {
          if (err !== null) reject(callError(err, this.endpoint));
          else if (res === undefined) reject(new EtcdCallError(status.INTERNAL, `no response to ${method}`, this.endpoint));
          else resolve(res);
        },
      );
    });
  }

  stream<M extends StreamName>(method: M): EtcdStream<StreamRequest<M>, StreamResponse<M>> {
    const def = methodDefinition(METHOD_SERVICES[method], method);
    const call = this.client.makeBidiStreamRequest<StreamRequest<M>, StreamResponse<M>>(
      def.path,
      (r) => def.requestSerialize(r),
      (buf) => def.responseDeserialize(buf) as StreamResponse<M>,
      new Metadata(),
    );
    return new ClientStream(call, this.endpoint);
  }

  /** Resolves once the channel is connected (rejects after the deadline). */
  waitForReady(deadline: number): Promise<void> {
    return new Promise((resolve, reject) => this.client.waitForReady(deadline, (err) => (err ? reject(err) : resolve())));
  }

  close(): void {
    this.client.close();
  }
}
