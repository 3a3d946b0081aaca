import { describe, expect, it } from "vitest";
import { channelFrame, chooseChannelProtocol, exitStatus, parseChannelMessage, parseTerminalSize, PROTOCOL_V4, PROTOCOL_V5 } from "./channel-protocol.ts";

describe("channel protocol", () => {
  it.each([
    [["v5.channel.k8s.io", "v4.channel.k8s.io"], PROTOCOL_V5],
    [["v4.channel.k8s.io", "v5.channel.k8s.io"], PROTOCOL_V5],
    [[" v4.channel.k8s.io", "channel.k8s.io"], PROTOCOL_V4],
    [["channel.k8s.io", "base64.channel.k8s.io"], undefined],
    [[], undefined],
  ])("chooses from %j: %s", (offered, chosen) => {
    expect(chooseChannelProtocol(offered)).toBe(chosen);
  });

  it.each([
    [Buffer.from([0, 104, 105]), PROTOCOL_V5, { kind: "data", channel: 0, data: Buffer.from("hi") }],
    [Buffer.from([4, 123]), PROTOCOL_V4, { kind: "data", channel: 4, data: Buffer.from("{") }],
    [Buffer.from([255, 0]), PROTOCOL_V5, { kind: "close", channel: 0 }],
    [Buffer.from([255, 0]), PROTOCOL_V4, { kind: "data", channel: 255, data: Buffer.from([0]) }],
    [Buffer.from([255]), PROTOCOL_V5, undefined],
    [Buffer.alloc(0), PROTOCOL_V5, undefined],
  ])("parses %j under %s", (raw, protocol, expected) => {
    expect(parseChannelMessage(raw, protocol)).toEqual(expected);
  });

  it("prefixes outgoing data with the channel byte", () => {
    expect([...channelFrame(1, "ok")]).toEqual([1, 111, 107]);
    expect([...channelFrame(3, new Uint8Array([9]))]).toEqual([3, 9]);
  });

  it.each([
    ['{"Width":80,"Height":24}', { width: 80, height: 24 }],
    ['{"Width":-1,"Height":24}', undefined],
    ['{"Width":"80","Height":24}', undefined],
    ["not json", undefined],
  ])("reads the resize message %s", (text, size) => {
    expect(parseTerminalSize(Buffer.from(text))).toEqual(size);
  });

  it("reports exit codes as the platform's Status", () => {
    expect(exitStatus({ exitCode: 0 })).toEqual({ metadata: {}, status: "Success" });
    expect(exitStatus({ exitCode: 3 })).toMatchObject({ status: "Failure", reason: "NonZeroExitCode", details: { causes: [{ reason: "ExitCode", message: "3" }] } });
    expect(exitStatus({ error: "exec failed" })).toEqual({ metadata: {}, status: "Failure", message: "exec failed" });
  });
});
