/**
 * The platform's remote command channel protocol over WebSocket (exec and attach), as
 * pure facts and functions shared by the servers that speak it:
 * - subprotocols `v5.channel.<group domain>` (adds the close signal) and
 *   `v4.channel.<group domain>` (the server's preference wins among the client's
 *   offers); port-forward's `portforward.<group domain>`, tunnelled in a WebSocket as
 *   `SPDY/3.1+portforward.<group domain>` (`streamProtocols`);
 * - every binary message starts with its channel byte: 0 stdin, 1 stdout, 2 stderr,
 *   3 error (one Status JSON when the command ends), 4 resize (`{"Width":…,"Height":…}`);
 *   under v5 a message `[255, channel]` closes that channel (stdin's end of input);
 * - the error channel's Status: `Success`, or for a non-zero exit code the reason
 *   `NonZeroExitCode` with an `ExitCode` cause whose message is the code (what
 *   clients turn into their own exit code).
 */

export interface StreamProtocols {
  v5: string;
  v4: string;
  /** v5 then v4: the server's order of preference. */
  channel: readonly string[];
  portForward: string;
  /** Port-forward's SPDY carried in WebSocket binary messages. */
  portForwardTunnel: string;
}

/** The protocol names under a profile's group domain (the kubernetes profile's for the platform's own clients). */
export function streamProtocols(groupDomain: string): StreamProtocols {
  const v5 = `v5.channel.${groupDomain}`;
  const v4 = `v4.channel.${groupDomain}`;
  const portForward = `portforward.${groupDomain}`;
  return { v5, v4, channel: [v5, v4], portForward, portForwardTunnel: `SPDY/3.1+${portForward}` };
}

/** True for a channel protocol with the close signal (v5). */
export function hasCloseSignal(protocol: string): boolean {
  return protocol.startsWith("v5.");
}

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;
/** v5: `[CLOSE, channel]` half-closes a channel. */
export const CLOSE = 255;

/** The subprotocol to answer from the client's offer (`Sec-WebSocket-Protocol` values), or undefined. */
export function chooseChannelProtocol(offered: Iterable<string>, known: readonly string[]): string | undefined {
  const set = new Set([...offered].map((p) => p.trim()));
  return known.find((p) => set.has(p));
}

/** One outgoing message: the channel byte, then the data. */
export function channelFrame(channel: number, data: Uint8Array | string): Buffer {
  const body = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat([Buffer.from([channel]), body]);
}

/** An incoming message as its channel and data; undefined for an empty message. */
export type ChannelMessage = { kind: "data"; channel: number; data: Buffer } | { kind: "close"; channel: number };

export function parseChannelMessage(message: Buffer, protocol: string): ChannelMessage | undefined {
  if (message.length === 0) return undefined;
  if (message[0] === CLOSE && hasCloseSignal(protocol)) return message.length >= 2 ? { kind: "close", channel: message[1] } : undefined;
  return { kind: "data", channel: message[0], data: message.subarray(1) };
}

export interface TerminalSize {
  width: number;
  height: number;
}

/** A resize message's size; undefined for anything else than two non-negative integers. */
export function parseTerminalSize(data: Buffer): TerminalSize | undefined {
  try {
    const v = JSON.parse(data.toString("utf8")) as { Width?: unknown; Height?: unknown };
    const ok = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= 0xffff;
    return ok(v.Width) && ok(v.Height) ? { width: v.Width, height: v.Height } : undefined;
  } catch {
    return undefined;
  }
}

/** The error channel's Status for a command's end: success, a non-zero exit code, or another failure. */
export function exitStatus(outcome: { exitCode: number } | { error: string }): Record<string, unknown> {
  if ("error" in outcome) return { metadata: {}, status: "Failure", message: outcome.error };
  if (outcome.exitCode === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    message: `command terminated with non-zero exit code: exit status ${outcome.exitCode}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(outcome.exitCode) }] },
  };
}
