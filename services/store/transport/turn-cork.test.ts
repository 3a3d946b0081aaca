// writeInTurn: the writes of one turn of the event loop reach the socket
// between one cork() and one uncork(); the next turn corks again.
import { describe, expect, it } from "vitest";
import { writeInTurn, type CorkableSocket } from "./turn-cork.ts";

/** Records cork/uncork/write calls in order. */
function recordingSocket(): CorkableSocket & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    cork: () => void calls.push("cork"),
    uncork: () => void calls.push("uncork"),
    write: (chunk) => {
      calls.push(`write ${Buffer.from(chunk).toString()}`);
      return true;
    },
  };
}

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("writeInTurn", () => {
  it("corks once for every write of one turn, microtasks included, and uncorks after them", async () => {
    const s = recordingSocket();
    writeInTurn(s, Buffer.from("a"));
    writeInTurn(s, Buffer.from("b"));
    await Promise.resolve();
    writeInTurn(s, Buffer.from("c"));
    // Still corked within the turn: the socket has written nothing yet.
    expect(s.calls).toEqual(["cork", "write a", "write b", "write c"]);
    await nextTurn();
    expect(s.calls).toEqual(["cork", "write a", "write b", "write c", "uncork"]);
  });

  it("corks each turn anew and keeps sockets apart", async () => {
    const s = recordingSocket();
    const t = recordingSocket();
    writeInTurn(s, Buffer.from("1"));
    writeInTurn(t, Buffer.from("x"));
    await nextTurn();
    writeInTurn(s, Buffer.from("2"));
    await nextTurn();
    expect(s.calls).toEqual(["cork", "write 1", "uncork", "cork", "write 2", "uncork"]);
    expect(t.calls).toEqual(["cork", "write x", "uncork"]);
  });
});
