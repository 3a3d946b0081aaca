/**
 * One exec or attach session of the platform's remote command protocol over SPDY/3.1
 * (the fallback of clients that do not use WebSocket; `X-Stream-Protocol-Version`
 * v5/v4.channel.<group domain>, which behave alike over SPDY: a stream's FIN is its close
 * signal), on a spdy-connection.ts connection:
 * - the client opens one stream per `streamtype` header: `error`, and `stdin`,
 *   `stdout`, `stderr` as the options ask, plus `resize` for a tty; the process starts
 *   once all of them exist (the platform's count), and the connection is closed when
 *   they do not all come within the creation timeout;
 * - stdin stream data feeds the process, its FIN ends the process's input; stdout and
 *   stderr (merged into stdout for a tty, as a terminal would) go back on their
 *   streams, each ended with a FIN when the process's output ends;
 * - the resize stream carries a sequence of `{"Width":…,"Height":…}` objects, passed to
 *   the process's `resize` when it has one;
 * - when the process has ended and its output is drained, the error stream carries the
 *   outcome's Status as JSON (shared/stream/channel-protocol.ts `exitStatus`) and a FIN,
 *   then the connection is closed (GOAWAY);
 * - a client that goes away ends an exec'd process (`kill`) but not an attached one.
 */
import type { Readable } from "node:stream";
import { exitStatus, parseTerminalSize } from "../../../shared/stream/channel-protocol.ts";
import { ended, type ChannelOptions, type StreamProcess } from "./channel-session.ts";
import { SpdyServerConnection, type ByteTransport, type SpdyStream } from "./spdy-connection.ts";
import { RST_PROTOCOL_ERROR } from "./spdy-frames.ts";

/** How long the client has to open its streams (the platform's default stream creation timeout). */
export const STREAM_CREATION_TIMEOUT_MS = 30_000;

type StreamType = "error" | "stdin" | "stdout" | "stderr" | "resize";
const STREAM_TYPES: readonly string[] = ["error", "stdin", "stdout", "stderr", "resize"];

/** Splits a byte sequence of concatenated flat JSON objects; returns the complete ones and the rest. */
export function splitJsonObjects(text: string): { objects: string[]; rest: string } {
  const objects: string[] = [];
  let start = text.indexOf("{");
  while (start >= 0) {
    const end = text.indexOf("}", start);
    if (end < 0) return { objects, rest: text.slice(start) };
    objects.push(text.slice(start, end + 1));
    start = text.indexOf("{", end + 1);
  }
  return { objects, rest: "" };
}

export class SpdyRemoteCommandSession {
  private readonly conn: SpdyServerConnection;
  private readonly streams: Partial<Record<StreamType, SpdyStream>> = {};
  private readonly expected: number;
  private readonly timer: NodeJS.Timeout;
  private proc: StreamProcess | undefined;

  /** `start` runs the process once every stream exists. */
  constructor(
    transport: ByteTransport,
    private readonly opts: ChannelOptions,
    private readonly start: () => StreamProcess,
    creationTimeoutMs = STREAM_CREATION_TIMEOUT_MS,
  ) {
    this.expected = 1 + Number(opts.stdin) + Number(opts.stdout) + Number(opts.stderr) + Number(opts.tty);
    this.conn = new SpdyServerConnection(transport, (stream) => this.onStream(stream));
    this.timer = setTimeout(() => this.close(), creationTimeoutMs);
  }

  /** Bytes from the client. */
  receive(chunk: Buffer): void {
    this.conn.receive(chunk);
  }

  /** The client went away (or the session ends): an exec'd process is ended. */
  close(): void {
    clearTimeout(this.timer);
    if (this.conn.isClosed) return;
    this.conn.close();
    this.proc?.kill?.();
  }

  private onStream(stream: SpdyStream): void {
    const type = stream.header("streamtype");
    if (!STREAM_TYPES.includes(type) || this.streams[type as StreamType] || this.proc) return stream.reset(RST_PROTOCOL_ERROR);
    this.streams[type as StreamType] = stream;
    if (Object.keys(this.streams).length === this.expected) this.run();
  }

  private run(): void {
    clearTimeout(this.timer);
    const proc = this.start();
    this.proc = proc;
    const { stdin, stdout, stderr, resize, error } = this.streams;
    const outputs: Array<Promise<void>> = [];
    const pipeOut = (from: Readable | null, to: SpdyStream | undefined) => {
      if (!from || !to) return;
      from.on("data", (d: Buffer) => to.write(d));
      outputs.push(ended(from));
    };
    pipeOut(proc.stdout, stdout);
    pipeOut(proc.stderr, this.opts.tty ? stdout : stderr);
    const input = stdin ? proc.stdin : null;
    input?.on("error", () => undefined);
    if (stdin && input) {
      stdin.onData = (d) => input.write(d);
      stdin.onEnd = () => input.end();
    }
    if (resize) {
      let pending = "";
      resize.onData = (d) => {
        const { objects, rest } = splitJsonObjects(pending + d.toString("utf8"));
        pending = rest.slice(0, 4096);
        for (const o of objects) {
          const size = parseTerminalSize(Buffer.from(o));
          if (size) void proc.resize?.(size);
        }
      };
    }
    void proc.done.then(async (outcome) => {
      await Promise.all(outputs);
      stdout?.end();
      stderr?.end();
      error?.end(Buffer.from(JSON.stringify(exitStatus(outcome))));
      this.proc = undefined;
      this.close();
    });
  }
}
