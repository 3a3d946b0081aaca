// Data of the node's Raft log entries.
//
// Every proposal carries a RequestTag naming the proposer (node id, a random
// nonce of the proposing process, a sequence number), so that the node that
// is waiting for the outcome recognizes the entry when it applies it, on
// whichever node it was proposed (a follower's proposal is forwarded to the
// leader by the Raft core and comes back through the log).
//
//   normal entry := u8 version(1) u8 kind(1: store request) tag request
//   conf context := u8 version(1) tag u8 hasMember [member]
//   tag          := uvarint proposer uvarint nonce uvarint seq
//   request      := the rest: mvcc encodeRequest(StoreRequest)
//
// An empty normal entry is the leader's no-op of a new term.

import { decodeRequest, encodeRequest, type StoreRequest } from "../mvcc/index.ts";
import { CodecError, Reader, Writer } from "../transport/binary.ts";
import { readMember, writeMember, type Member } from "./members.ts";

const VERSION = 1;
const KIND_REQUEST = 1;

export interface RequestTag {
  proposer: number;
  nonce: number;
  seq: number;
}

function writeTag(w: Writer, t: RequestTag): void {
  w.uvarint(t.proposer);
  w.uvarint(t.nonce);
  w.uvarint(t.seq);
}

function readTag(r: Reader): RequestTag {
  return { proposer: r.uvarint(), nonce: r.uvarint(), seq: r.uvarint() };
}

/** `body`: encodeRequest(request), when the caller made it already. */
export function encodeRequestEntry(tag: RequestTag, request: StoreRequest, body = encodeRequest(request)): Uint8Array {
  const w = new Writer(body.byteLength + 24);
  w.u8(VERSION);
  w.u8(KIND_REQUEST);
  writeTag(w, tag);
  w.raw(body);
  return w.finish();
}

/** Decodes a normal entry's data; undefined for an empty (no-op) entry. Throws on malformed data. */
export function decodeRequestEntry(data: Uint8Array): { tag: RequestTag; request: StoreRequest } | undefined {
  if (data.byteLength === 0) return undefined;
  const r = new Reader(data);
  const version = r.u8();
  if (version !== VERSION) throw new CodecError(`unknown entry version ${version}`);
  const kind = r.u8();
  if (kind !== KIND_REQUEST) throw new CodecError(`unknown entry kind ${kind}`);
  const tag = readTag(r);
  return { tag, request: decodeRequest(r.rest()) };
}

export function encodeConfContext(tag: RequestTag, member: Member | undefined): Uint8Array {
  const w = new Writer(64);
  w.u8(VERSION);
  writeTag(w, tag);
  w.bool(member !== undefined);
  if (member) writeMember(w, member);
  return w.finish();
}

/** Decodes a conf change context; an absent or empty context has neither tag nor member. */
export function decodeConfContext(ctx: Uint8Array | undefined): { tag?: RequestTag; member?: Member } {
  if (!ctx || ctx.byteLength === 0) return {};
  const r = new Reader(ctx);
  const version = r.u8();
  if (version !== VERSION) throw new CodecError(`unknown conf context version ${version}`);
  const tag = readTag(r);
  const member = r.bool() ? readMember(r) : undefined;
  r.end();
  return { tag, member };
}
