/**
 * One exec or attach session of the remote command channel protocol
 * (shared/stream/channel-protocol.ts) over a WebSocket: the client's stdin channel
 * feeds the process, its stdout and stderr (merged into stdout for a tty, as a
 * terminal would) go back on their channels, and when the process has ended and its
 * output is drained the error channel carries the outcome's Status and the socket is
 * closed normally. Under v5 the client's close signal for stdin ends the process's
 * input. Resize messages go to the process's `resize` (a tty exec, tty-process.ts). A client
 * that goes away ends an exec'd process (it is the session's own) but not an attached one.
 */
import type { Readable, Writable } from "node:stream";
import type { WebSocket } from "ws";
import { channelFrame, ERROR, exitStatus, parseChannelMessage, parseTerminalSize, RESIZE, STDERR, STDIN, STDOUT, type TerminalSize } from "../../../shared/stream/channel-protocol.ts";

export type ProcessOutcome = { exitCode: number } | { error: string };

/** A process as a session sees it. */
export interface StreamProcess {
  stdin: Writable | null;
  stdout: Readable | null;
  stderr: Readable | null;
  /** Resolves once the process ended. */
  done: Promise<ProcessOutcome>;
  /** Ends the process when the session owns it (exec). */
  kill?(): void;
  /** Sets the size of the process's terminal (a tty process only); resolves once it is set. */
  resize?(size: TerminalSize): Promise<void> | void;
}

export interface ChannelOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** Resolves once a readable stream has ended, closed or failed. */
export function ended(stream: Readable | null): Promise<void> {
  if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
}

export function runChannelSession(ws: WebSocket, protocol: string, proc: StreamProcess, opts: ChannelOptions): void {
  let open = true;
  const send = (channel: number, data: Buffer | string) => {
    if (open && ws.readyState === ws.OPEN) ws.send(channelFrame(channel, data));
  };
  const outputs: Array<Promise<void>> = [];
  if (opts.stdout && proc.stdout) {
    proc.stdout.on("data", (d: Buffer) => send(STDOUT, d));
    outputs.push(ended(proc.stdout));
  }
  if (opts.stderr && proc.stderr) {
    const channel = opts.tty ? STDOUT : STDERR;
    proc.stderr.on("data", (d: Buffer) => send(channel, d));
    outputs.push(ended(proc.stderr));
  }
  const stdin = opts.stdin ? proc.stdin : null;
  stdin?.on("error", () => undefined);
  ws.on("message", (raw: Buffer, isBinary: boolean) => {
    if (!isBinary) return;
    const msg = parseChannelMessage(raw, protocol);
    if (msg?.kind === "data" && msg.channel === RESIZE) {
      const size = parseTerminalSize(msg.data);
      if (size) void proc.resize?.(size);
      return;
    }
    if (!msg || msg.channel !== STDIN || !stdin) return;
    if (msg.kind === "close") stdin.end();
    else if (msg.data.length > 0) stdin.write(msg.data);
  });
  ws.on("close", () => {
    open = false;
    proc.kill?.();
  });
  ws.on("error", () => undefined);
  void proc.done.then(async (outcome) => {
    await Promise.all(outputs);
    send(ERROR, JSON.stringify(exitStatus(outcome)));
    open = false;
    ws.close(1000);
  });
}
