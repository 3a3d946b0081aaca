/**
 * The JSON-lines watch decoder: events split anywhere across chunks (also inside a
 * multi-byte UTF-8 character), many events in one chunk, blank lines and CRLF ends,
 * and a last event without its newline given back at the end.
 */
import { describe, expect, it } from "vitest";
import { getProfile } from "../platform/index.ts";
import { WireCodec, wireContentType } from "./wire-codec.ts";

const CM = { group: "", version: "v1", resource: "configmaps" };

function decoder() {
  return new WireCodec("json", getProfile()).watchDecoder(CM, "application/json");
}

const events = [
  { type: "ADDED", object: { kind: "ConfigMap", metadata: { name: "a", resourceVersion: "1" }, data: { text: "grüße – 日本 🎉" } } },
  { type: "MODIFIED", object: { kind: "ConfigMap", metadata: { name: "a", resourceVersion: "2" }, data: { text: "x".repeat(3000) } } },
  { type: "DELETED", object: { kind: "ConfigMap", metadata: { name: "b", resourceVersion: "3" } } },
];

const bytes = Buffer.from(events.map((e) => JSON.stringify(e) + "\n").join(""), "utf8");

describe("JSON lines watch decoder", () => {
  it.each([1, 2, 3, 7, 64, 1000, bytes.length])("decodes the stream cut into chunks of %i bytes", (size) => {
    const d = decoder();
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i += size) out.push(...d.push(bytes.subarray(i, i + size)));
    out.push(...d.end());
    expect(out).toEqual(events);
  });

  it("splits a multi-byte character over two chunks without damage", () => {
    const line = Buffer.from(JSON.stringify(events[0]) + "\n", "utf8");
    const cut = line.indexOf(Buffer.from("🎉", "utf8")) + 2; // inside the 4-byte character
    const d = decoder();
    expect(d.push(line.subarray(0, cut))).toEqual([]);
    expect(d.push(line.subarray(cut))).toEqual([events[0]]);
  });

  it("skips blank lines, accepts CRLF and returns an unterminated last event at the end", () => {
    const d = decoder();
    const text = `\n  \r\n${JSON.stringify(events[2])}\r\n\n${JSON.stringify(events[0])}`;
    expect(d.push(Buffer.from(text, "utf8"))).toEqual([events[2]]);
    expect(d.end()).toEqual([events[0]]);
    expect(d.end()).toEqual([]);
  });
});

describe("wireContentType", () => {
  it.each([
    ["json", "json"],
    ["protobuf", "protobuf"],
    ["cbor", "cbor"],
    ["xml", undefined],
    ["JSON", undefined],
    ["", undefined],
  ])("%s: %s", (name, expected) => {
    expect(wireContentType(name)).toBe(expected);
  });
});
