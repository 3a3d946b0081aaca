import { describe, expect, it } from "vitest";
import { GrpcStatus } from "./errors.ts";
import { decodeGrpcMessage, frameMessage, grpcTimeout, statusFromHeaders, statusFromHttp, unframeMessage } from "./grpc-frame.ts";

describe("gRPC message framing", () => {
  it("prefixes a message with a zero flag and its big-endian length, and reads it back", () => {
    const framed = frameMessage(Buffer.from("hello"));
    expect([...framed.subarray(0, 5)]).toEqual([0, 0, 0, 0, 5]);
    expect(unframeMessage(framed)?.toString()).toBe("hello");
    expect(unframeMessage(frameMessage(new Uint8Array(0)))).toEqual(Buffer.alloc(0));
  });

  it.each([
    ["nothing", Buffer.alloc(0), undefined],
    ["a short prefix", Buffer.from([0, 0, 0]), "Received a truncated message"],
    ["a body shorter than its length", Buffer.from([0, 0, 0, 0, 4, 1, 2]), "Received a truncated message"],
    ["two messages", Buffer.concat([frameMessage(Buffer.from("a")), frameMessage(Buffer.from("b"))]), "Received more than one message for a unary call"],
    ["a compressed message", Buffer.from([1, 0, 0, 0, 1, 9]), "Received a compressed message without a negotiated encoding"],
  ])("answers %s", (_, data, details) => {
    const out = unframeMessage(data);
    if (details === undefined) expect(out).toBeUndefined();
    else expect(out).toEqual({ code: GrpcStatus.INTERNAL, details });
  });
});

describe("grpc-timeout", () => {
  it.each([
    [0, "0m"],
    [1.2, "2m"],
    [10_000, "10000m"],
    [99_999_999, "99999999m"],
    [100_000_000, "100000S"],
    [1e12, "277778H"],
  ])("%d ms -> %s", (ms, header) => expect(grpcTimeout(ms)).toBe(header));
});

describe("call status", () => {
  it("reads grpc-status and the percent-encoded grpc-message", () => {
    expect(statusFromHeaders({ "grpc-status": "11", "grpc-message": "etcdserver%3A mvcc%3A required revision has been compacted" })).toEqual({
      code: GrpcStatus.OUT_OF_RANGE,
      details: "etcdserver: mvcc: required revision has been compacted",
    });
    expect(statusFromHeaders({ "grpc-status": "0" })).toEqual({ code: GrpcStatus.OK, details: "" });
    expect(statusFromHeaders({ ":status": 200 })).toBeUndefined();
    expect(statusFromHeaders({ "grpc-status": "x" })).toEqual({ code: GrpcStatus.UNKNOWN, details: "Invalid grpc-status x" });
  });

  it("keeps a malformed percent-encoding as sent", () => {
    expect(decodeGrpcMessage("100% sure")).toBe("100% sure");
    expect(decodeGrpcMessage("a%20b")).toBe("a b");
  });

  it.each([
    [400, GrpcStatus.INTERNAL],
    [401, GrpcStatus.UNAUTHENTICATED],
    [403, GrpcStatus.PERMISSION_DENIED],
    [404, GrpcStatus.UNIMPLEMENTED],
    [429, GrpcStatus.UNAVAILABLE],
    [502, GrpcStatus.UNAVAILABLE],
    [503, GrpcStatus.UNAVAILABLE],
    [504, GrpcStatus.UNAVAILABLE],
    [500, GrpcStatus.UNKNOWN],
  ])("maps HTTP %d without a gRPC status", (http, code) => {
    expect(statusFromHttp(http)).toEqual({ code, details: `Received HTTP status code ${http}` });
  });
});
