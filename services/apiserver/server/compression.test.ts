import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { markResponse } from "../endpoints/answer-record.ts";
import { DEFAULT_COMPRESSION_THRESHOLD_BYTES, maybeCompress } from "./compression.ts";

const gzipClient = new Request("https://127.0.0.1/api/v1/namespaces/ns/configmaps/c", { headers: { "accept-encoding": "gzip" } });
const plainClient = new Request("https://127.0.0.1/api/v1/namespaces/ns/configmaps/c");

function streamOf(bytes: Uint8Array, chunk = 16 * 1024): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + chunk));
      at += chunk;
    },
  });
}

describe("response compression (the platform's threshold: bodies above 128 KiB)", () => {
  it("answers a gzip client's small body of known size with the handler's own Response: not read, no Vary", async () => {
    const body = JSON.stringify({ kind: "ConfigMap", data: { v: "x".repeat(2048) } });
    const res = markResponse(new Response(body, { headers: { "content-type": "application/json" } }), 0, body);
    const answer = await maybeCompress(gzipClient, res, "get");
    expect(answer).toBe(res);
    expect(answer.headers.get("vary")).toBeNull();
    expect(answer.bodyUsed).toBe(false);
  });

  it("sends a streamed body that ends within the threshold as it is", async () => {
    const bytes = new Uint8Array(64 * 1024).fill(97);
    const answer = await maybeCompress(gzipClient, new Response(streamOf(bytes)), "list");
    expect(answer.headers.get("content-encoding")).toBeNull();
    expect(answer.headers.get("vary")).toBeNull();
    expect(new Uint8Array(await answer.arrayBuffer())).toEqual(bytes);
  });

  it.each([
    ["known size", (bytes: Uint8Array) => markResponse(new Response(bytes), 0, bytes)],
    ["streamed", (bytes: Uint8Array) => new Response(streamOf(bytes))],
  ])("gzips a larger body (%s) with Vary: Accept-Encoding", async (_, make) => {
    const bytes = new Uint8Array(DEFAULT_COMPRESSION_THRESHOLD_BYTES + 1).fill(98);
    const answer = await maybeCompress(gzipClient, make(bytes), "list");
    expect(answer.headers.get("content-encoding")).toBe("gzip");
    expect(answer.headers.get("vary")).toBe("Accept-Encoding");
    expect(new Uint8Array(gunzipSync(new Uint8Array(await answer.arrayBuffer())))).toEqual(bytes);
  });

  it("leaves the answer of a client that does not accept gzip, and of a watch, untouched", async () => {
    const bytes = new Uint8Array(DEFAULT_COMPRESSION_THRESHOLD_BYTES * 2);
    const res = new Response(bytes);
    expect(await maybeCompress(plainClient, res, "get")).toBe(res);
    const watch = new Response(bytes);
    expect(await maybeCompress(gzipClient, watch, "watch")).toBe(watch);
  });
});
