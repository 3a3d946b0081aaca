import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { keepParserRunning, releaseParser } from "./tls-parser-pause.ts";

/** A pooled parser as node's: `pause` on the prototype. */
class FakeParser {
  paused = 0;
  pause(): void {
    this.paused++;
  }
}

function socketWith(parser: FakeParser | null): Socket & { parser: FakeParser | null } {
  return Object.assign(new EventEmitter(), { parser }) as unknown as Socket & { parser: FakeParser | null };
}

describe("keepParserRunning", () => {
  it("makes the connection's parser ignore pause until the socket closes", () => {
    const parser = new FakeParser();
    const socket = socketWith(parser);
    keepParserRunning(socket);
    parser.pause();
    expect(parser.paused).toBe(0);
    socket.emit("close");
    parser.pause();
    expect(parser.paused).toBe(1);
    expect(Object.hasOwn(parser, "pause")).toBe(false);
  });

  it("takes the override off when node gives the parser back on an upgrade", () => {
    const parser = new FakeParser();
    const socket = socketWith(parser);
    keepParserRunning(socket);
    releaseParser(socket);
    parser.pause();
    expect(parser.paused).toBe(1);
  });

  it("leaves the override of the parser's next connection in place when the first socket closes late", () => {
    const parser = new FakeParser();
    const upgraded = socketWith(parser);
    keepParserRunning(upgraded);
    releaseParser(upgraded); // node pooled the parser ...
    const next = socketWith(parser); // ... and gave it to a new connection
    keepParserRunning(next);
    upgraded.emit("close");
    parser.pause();
    expect(parser.paused).toBe(0);
    next.emit("close");
    parser.pause();
    expect(parser.paused).toBe(1);
  });

  it("does nothing to a socket without a parser", () => {
    const socket = socketWith(null);
    expect(() => keepParserRunning(socket)).not.toThrow();
    expect(socket.listenerCount("close")).toBe(0);
  });
});
