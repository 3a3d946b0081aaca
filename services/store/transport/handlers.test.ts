import { describe, expect, it } from "vitest";
import { MessageType, SnapshotStatus, newMessage, type Message } from "../raft/index.ts";
import { TransportHandlers } from "./handlers.ts";
import { MemoryNetwork } from "./memory.ts";
import type { RemovalNotice } from "./types.ts";

/** Calls the handlers the way a transport does. */
class Probe extends TransportHandlers {
  fire(m: Message): void {
    this.messageHandler(m);
    this.unreachableHandler(m.to);
    this.snapshotHandler(m.to, SnapshotStatus.Finish);
    this.removedHandler(m.from, { index: 1, term: 1 });
  }
}

const msg = newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1 });

describe("transport handlers", () => {
  it("are no-ops until set", () => {
    expect(() => new Probe().fire(msg)).not.toThrow();
  });

  it("each setter sets its own handler, and a later set replaces it", () => {
    const p = new Probe();
    const calls: string[] = [];
    p.onMessage(() => calls.push("old message"));
    p.onMessage((m) => calls.push(`message ${m.to}`));
    p.onUnreachable((id) => calls.push(`unreachable ${id}`));
    p.onSnapshotStatus((id, s) => calls.push(`snapshot ${id} ${s === SnapshotStatus.Finish ? "finish" : "failure"}`));
    p.onRemoved((id, n: RemovalNotice) => calls.push(`removed ${id} at ${n.index}`));
    p.fire(msg);
    expect(calls).toEqual(["message 2", "unreachable 2", "snapshot 2 finish", "removed 1 at 1"]);
  });

  it("a transport delivers to the handler set last", async () => {
    const net = new MemoryNetwork();
    const [a, b] = [net.endpoint(1), net.endpoint(2)];
    a.addPeer(2);
    const first: Message[] = [];
    const last: Message[] = [];
    b.onMessage((m) => first.push(m));
    b.onMessage((m) => last.push(m));
    a.send([msg]);
    // A memory delivery is two check-phase macrotasks: a timer, then two immediates, ends after both under any load.
    await new Promise((r) => setTimeout(() => setImmediate(() => setImmediate(r)), 5));
    expect([first.length, last.length]).toEqual([0, 1]);
    await Promise.all([a.close(), b.close()]);
  });
});
