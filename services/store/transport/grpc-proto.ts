// The store.peer.v1.Peer service as grpc-js sees it (loaded at runtime from
// shared/proto/store/peer.proto), with the message shapes proto-loader
// produces under PROTO_LOADER_OPTIONS: uint64 as decimal strings on input
// (numbers or strings accepted on output), bytes as Buffers.

import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { PROTO_LOADER_OPTIONS, STORE_PEER_PROTO, protoPath } from "../../../shared/proto/index.ts";
import { decodePeerAck, decodePeerBatch, encodePeerAck, encodePeerBatch } from "./peer-wire.ts";

export type U64 = string | number;

export interface PeerBatchMsg {
  cluster_id: U64;
  from: U64;
  to: U64;
  seq: U64;
  messages: Uint8Array[];
}

export interface PeerAckMsg {
  seq: U64;
  error: string;
  /** With a refusal of a removed sender: the removal's index and the receiver's term then (see peer.proto); absent or 0 otherwise. */
  removed_index?: U64;
  removed_term?: U64;
}

export interface SnapshotChunkMsg {
  cluster_id: U64;
  from: U64;
  to: U64;
  metadata: Uint8Array;
  offset: U64;
  data: Uint8Array;
  last: boolean;
}

export interface SnapshotAckMsg {
  received: U64;
  error: string;
}

/** Call metadata key of Stream: the sender's requested ack interval in batches (see grpc-server.ts). */
export const ACK_EVERY_METADATA = "x-peer-ack-every";

export interface PeerClient extends grpc.Client {
  Stream(metadata?: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<PeerBatchMsg, PeerAckMsg>;
  SendSnapshot(callback: grpc.requestCallback<SnapshotAckMsg>): grpc.ClientWritableStream<SnapshotChunkMsg>;
}

interface PeerServiceCtor {
  new (address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions): PeerClient;
  service: grpc.ServiceDefinition;
}

let loaded: PeerServiceCtor | undefined;

const PEER_SERVICE = "store.peer.v1.Peer";

/**
 * The service as proto-loader reads it, except Stream, whose batches and acks
 * use the hand-written codec of peer-wire.ts (same wire format, less work per
 * batch: it carries every Raft message).
 */
function load(): PeerServiceCtor {
  if (loaded) return loaded;
  const service = loadSync(protoPath(STORE_PEER_PROTO), PROTO_LOADER_OPTIONS)[PEER_SERVICE] as grpc.ServiceDefinition;
  const stream = service.Stream as grpc.MethodDefinition<PeerBatchMsg, PeerAckMsg>;
  const definition: grpc.ServiceDefinition = {
    ...service,
    Stream: { ...stream, requestSerialize: encodePeerBatch, requestDeserialize: decodePeerBatch, responseSerialize: encodePeerAck, responseDeserialize: decodePeerAck },
  };
  loaded = grpc.makeClientConstructor(definition, PEER_SERVICE) as unknown as PeerServiceCtor;
  return loaded;
}

export function peerServiceDefinition(): grpc.ServiceDefinition {
  return load().service;
}

export function newPeerClient(address: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions): PeerClient {
  const Ctor = load();
  return new Ctor(address, credentials, options);
}

/** "http://h:p", "https://h:p" or "h:p" → "h:p". */
export function grpcAddress(url: string): string {
  return url.replace(/^[a-z]+:\/\//i, "").replace(/\/+$/, "");
}

/** Size limit of one gRPC message on the peer service (snapshots travel in chunks below it). */
export const MAX_GRPC_MESSAGE_BYTES = 64 * 1024 * 1024;
