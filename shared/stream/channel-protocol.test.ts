import { describe, expect, it } from "vitest";
import { getProfile } from "../platform/index.ts";
import { channelFrame, chooseChannelProtocol, exitStatus, parseChannelMessage, parseTerminalSize, streamProtocols } from "./channel-protocol.ts";

const domain = getProfile("kubernetes").groupDomain;
const { v5: PROTOCOL_V5, v4: PROTOCOL_V4, channel: CHANNEL } = streamProtocols(domain);

describe("channel protocol", () => {
  it.each([
    [[PROTOCOL_V5, PROTOCOL_V4], PROTOCOL_V5],
    [[PROTOCOL_V4, PROTOCOL_V5], PROTOCOL_V5],
    [[` ${PROTOCOL_V4}`, `channel.${domain}`], PROTOCOL_V4],
    [[`channel.${domain}`, `base64.channel.${domain}`], undefined],
    [[], undefined],
  ])("chooses from %j: %s", (offered, chosen) => {
    expect(chooseChannelProtocol(offered, CHANNEL)).toBe(chosen);
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

  it("names the protocols under the profile's group domain", () => {
    const plat = streamProtocols(getProfile("plat").groupDomain);
    expect(plat.v5).toBe(`v5.channel.${getProfile("plat").groupDomain}`);
    expect(streamProtocols(domain).portForwardTunnel).toBe(`SPDY/3.1+portforward.${domain}`);
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
