// The framed peer stream between transports on loopback (plaintext; the TLS
// side is test/storage/store-tls.test.ts): order, batching, snapshots,
// reconnects, refusals and removal notices, the ack rules, and a raw client
// speaking the frames.
import { connect, createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MessageType, SnapshotStatus, newMessage, type Message } from "../raft/index.ts";
import { encodeMessage } from "./codec.ts";
import { FrameKind } from "./frames.ts";
import { decodePeerAck, encodePeerBatch, type PeerAckMsg } from "./peer-wire.ts";
import { framed, writeFrame } from "./peer-socket.ts";
import { ACK_AFTER_MS, ACK_EVERY } from "./receiver.ts";
import { PeerSender, STALL_MS, ackNotice } from "./stream-sender.ts";
import { StreamTransport } from "./stream-transport.ts";

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("framed peer stream transport", () => {
  const open: StreamTransport[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
  });

  async function start(id: number, clusterId = 7n, port = 0): Promise<StreamTransport> {
    const t = await StreamTransport.listen({ id, clusterId, listen: `127.0.0.1:${port}` });
    open.push(t);
    return t;
  }

  it("delivers batches in order and snapshots in chunks", async () => {
    const a = await start(1);
    const b = await start(2);
    a.addPeer(2, [`http://127.0.0.1:${b.port}`]);
    const got: Message[] = [];
    b.onMessage((m) => got.push(m));
    const msgs = Array.from({ length: 500 }, (_, i) => newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 3, commit: i }));
    a.send(msgs.slice(0, 250));
    a.send(msgs.slice(250));
    await until(() => got.length === 500, "500 messages");
    expect(got.map((m) => m.commit)).toEqual(msgs.map((m) => m.commit));
    expect(a.stats()[2].batches).toBeLessThan(10);

    const statuses: SnapshotStatus[] = [];
    a.onSnapshotStatus((_id, s) => statuses.push(s));
    const data = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => i % 251);
    const snap = newMessage({ type: MessageType.Snap, from: 1, to: 2, term: 3 });
    snap.snapshot = { data, metadata: { index: 99, term: 3, confState: { voters: [1, 2], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false } } };
    a.send([snap]);
    await until(() => statuses.length === 1, "the snapshot status");
    expect(statuses).toEqual([SnapshotStatus.Finish]);
    const recv = got[got.length - 1];
    expect(recv.type).toBe(MessageType.Snap);
    expect(recv.snapshot?.metadata.index).toBe(99);
    expect(Buffer.from(recv.snapshot!.data).equals(Buffer.from(data))).toBe(true);
  });

  it("reports an unreachable peer, then reconnects when it is back", async () => {
    const a = await start(1);
    const b = await start(2);
    const port = b.port;
    a.addPeer(2, [`127.0.0.1:${port}`]);
    const unreachable: number[] = [];
    a.onUnreachable((id) => unreachable.push(id));
    await b.close();
    a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1 })]);
    await until(() => unreachable.length > 0, "an unreachable report");
    a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 9, term: 1 })]);
    expect(unreachable).toContain(9);
    const b2 = await start(2, 7n, port);
    const got: Message[] = [];
    b2.onMessage((m) => got.push(m));
    await until(
      () => {
        a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1 })]);
        return got.length > 0;
      },
      "delivery after the restart",
      8000,
    );
  });

  it("refuses batches of another cluster and from removed members", async () => {
    const a = await start(1, 1n);
    const b = await start(2, 2n);
    a.addPeer(2, [`127.0.0.1:${b.port}`]);
    const got: Message[] = [];
    const unreachable: number[] = [];
    b.onMessage((m) => got.push(m));
    a.onUnreachable((id) => unreachable.push(id));
    a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1 })]);
    await until(() => unreachable.length > 0, "refusal");
    expect(got).toHaveLength(0);

    const c = await start(3, 1n);
    c.removePeer(1);
    a.addPeer(3, [`127.0.0.1:${c.port}`]);
    const gotC: Message[] = [];
    c.onMessage((m) => gotC.push(m));
    a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 3, term: 1 })]);
    await until(() => unreachable.includes(3), "refusal of a removed member");
    expect(gotC).toHaveLength(0);
  });

  it("answers a removed member with the removal notice it was given, and others with a plain refusal", async () => {
    const a = await start(1);
    const b = await start(2);
    const c = await start(3);
    b.removePeer(1, { index: 42, term: 3 });
    c.removePeer(1);
    a.addPeer(2, [`127.0.0.1:${b.port}`]);
    a.addPeer(3, [`127.0.0.1:${c.port}`]);
    const notices: unknown[] = [];
    const unreachable: number[] = [];
    a.onRemoved((peer, notice) => notices.push([peer, notice]));
    a.onUnreachable((id) => unreachable.push(id));
    const got: Message[] = [];
    b.onMessage((m) => got.push(m));
    c.onMessage((m) => got.push(m));
    a.send([newMessage({ type: MessageType.PreVote, from: 1, to: 2, term: 5 }), newMessage({ type: MessageType.PreVote, from: 1, to: 3, term: 5 })]);
    await until(() => unreachable.includes(2) && unreachable.includes(3), "both refusals");
    expect(notices).toEqual([[2, { index: 42, term: 3 }]]);
    expect(got).toHaveLength(0);

    // A node of another cluster with the removed id gets a plain refusal.
    const stranger = await start(1, 8n);
    const strangerNotices: unknown[] = [];
    const strangerUnreachable: number[] = [];
    stranger.onRemoved((peer, notice) => strangerNotices.push([peer, notice]));
    stranger.onUnreachable((id) => strangerUnreachable.push(id));
    stranger.addPeer(2, [`127.0.0.1:${b.port}`]);
    stranger.send([newMessage({ type: MessageType.PreVote, from: 1, to: 2, term: 5 })]);
    await until(() => strangerUnreachable.includes(2), "the other cluster's refusal");
    expect(strangerNotices).toEqual([]);

    // Added again (the log added the id back): accepted, no notice.
    b.addPeer(1, [`127.0.0.1:${a.port}`]);
    await until(
      () => {
        a.send([newMessage({ type: MessageType.PreVote, from: 1, to: 2, term: 5 })]);
        return got.length > 0;
      },
      "delivery once added again",
      8000,
    );
    expect(notices).toHaveLength(1);
  });

  it("reads a removal notice only from a refusal with a positive index", () => {
    expect(ackNotice({ seq: "1", error: "member 1 was removed from the cluster", removed_index: "42", removed_term: "3" })).toEqual({ index: 42, term: 3 });
    expect(ackNotice({ seq: "1", error: "member 1 was removed from the cluster", removed_index: "0", removed_term: "0" })).toBeUndefined();
    expect(ackNotice({ seq: "1", error: "member 1 was removed from the cluster" })).toBeUndefined();
    expect(ackNotice({ seq: "1", error: "", removed_index: "42", removed_term: "3" })).toBeUndefined();
  });

  it("acks every ACK_EVERY-th batch at once, and the sender never waits beyond its window", async () => {
    const a = await start(1);
    const b = await start(2);
    a.addPeer(2, [`127.0.0.1:${b.port}`]);
    const got: Message[] = [];
    b.onMessage((m) => got.push(m));
    // More single-message batches than the sender's window of unacked batches (64).
    const total = 100;
    for (let i = 0; i < total; i++) {
      a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1, commit: i })]);
      await new Promise((r) => setImmediate(r));
    }
    await until(() => got.length === total, "every message");
    expect(got.map((m) => m.commit)).toEqual(Array.from({ length: total }, (_, i) => i));
    const st = a.stats()[2];
    expect(st.batches).toBe(total);
    const expected = Math.floor(total / ACK_EVERY);
    await until(() => a.stats()[2].acks >= expected, "the acks of batches 16, 32, ...");
    await new Promise((r) => setTimeout(r, 20)); // room for any further ack to arrive
    expect(a.stats()[2].acks).toBe(expected);
  });

  it("acks an idle stream of heartbeats by every ACK_EVERY-th batch alone, and any batch before the sender's stall check", () => {
    const heartbeatMs = 100;
    expect(ACK_AFTER_MS).toBeGreaterThan(ACK_EVERY * heartbeatMs);
    expect(ACK_AFTER_MS).toBeLessThan(STALL_MS / 2);
  });

  it("acks a batch that is not the ACK_EVERY-th within ACK_AFTER_MS, and answers a bad frame by closing", async () => {
    const b = await start(2);
    const got: Message[] = [];
    b.onMessage((m) => got.push(m));
    const sock = connect({ host: "127.0.0.1", port: b.port });
    try {
      const acks: PeerAckMsg[] = [];
      framed(sock, (f) => acks.push(decodePeerAck(f.payload)));
      const closed = new Promise<void>((resolve) => sock.once("close", () => resolve()));
      sock.on("error", () => undefined);
      const sentAt = Date.now();
      for (let seq = 1; seq <= 3; seq++) {
        const batch = { cluster_id: "7", from: 1, to: 2, seq, messages: [encodeMessage(newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1, commit: seq }))] };
        writeFrame(sock, FrameKind.Batch, (headroom) => encodePeerBatch(batch, headroom));
      }
      await until(() => acks.length === 1, "the late ack");
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(ACK_AFTER_MS - 20);
      expect(acks.map((a) => `${a.seq}:${a.error}`)).toEqual(["3:"]);
      expect(got.map((m) => m.commit)).toEqual([1, 2, 3]);
      // A frame of 0 bytes is no frame: the receiver drops the connection.
      sock.write(Buffer.from([0, 0, 0, 0, 1]));
      await closed;
      expect(got).toHaveLength(3);
    } finally {
      sock.destroy();
    }
  });

  it("drops a stream whose batch waited STALL_MS for its ack, reports the peer and reconnects after the backoff", async () => {
    // A peer that takes the connection and reads but never answers (a host gone without a reset looks the same).
    const accepted: Socket[] = [];
    const silent = createServer((sock) => {
      accepted.push(sock);
      sock.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    let now = 1_000_000;
    const unreachable: number[] = [];
    const sender = new PeerSender(2, 1, 7n, { host: "127.0.0.1", port }, undefined, { unreachable: (id) => unreachable.push(id), snapshot: () => undefined, removed: () => undefined }, 1 << 20, () => now);
    const heartbeat = (): void => {
      sender.send(newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1 }));
      sender.flush();
    };
    try {
      heartbeat();
      await until(() => accepted.length === 1, "the connection");
      now += STALL_MS - 1;
      heartbeat();
      expect(unreachable).toEqual([]);
      now += 1;
      heartbeat();
      expect(unreachable).toEqual([2]);
      await until(() => accepted[0].destroyed || accepted[0].readableEnded, "the stalled connection to close");
      // Blocked for the backoff (100 ms), then a new connection.
      heartbeat();
      expect(sender.stats.dropped).toBeGreaterThan(0);
      now += 100;
      heartbeat();
      await until(() => accepted.length === 2, "the new connection");
      expect(sender.stats.reconnects).toBe(2);
    } finally {
      sender.close();
      for (const s of accepted) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
