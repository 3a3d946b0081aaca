import { describe, expect, it } from "vitest";
import { LogRenderer, parseCriLogLine, splitRecords, tailRecords, type LogRenderOptions } from "./cri-log.ts";
import { parseLogQuery } from "./container-logs.ts";

const A = "2026-01-01T10:00:00.000000001Z";
const B = "2026-01-01T10:00:01.5Z";
const FILE = `${A} stdout F one\n${B} stderr P tw\n${B} stderr F o\n${B} stdout F three\n`;
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

describe("CRI log records", () => {
  it.each([
    [`${A} stdout F hello world`, { time: A, stream: "stdout", partial: false, text: "hello world" }],
    [`${A} stderr P part`, { stream: "stderr", partial: true, text: "part" }],
    [`${A} stdout F `, { text: "" }],
    [`${A} stdout hello`, { partial: false, text: "hello" }],
  ])("%j", (line, expected) => {
    expect(parseCriLogLine(line)).toMatchObject(expected);
  });

  it.each([["not a record"], ["yesterday stdout F x"], [`${A} stdin F x`]])("%j is not a record", (line) => {
    expect(parseCriLogLine(line)).toBeUndefined();
  });

  it("keeps an unfinished line for the next read", () => {
    const { records, rest } = splitRecords(`${A} stdout F one\n${A} stdout F tw`);
    expect(records.map((r) => r.text)).toEqual(["one"]);
    expect(rest).toBe(`${A} stdout F tw`);
  });
});

describe("rendering with options", () => {
  const records = splitRecords(FILE).records;
  it.each<[string, LogRenderOptions, number | undefined, string]>([
    ["everything", { timestamps: false }, undefined, "one\ntwo\nthree\n"],
    ["tail 2 keeps a line's partial records", { timestamps: false }, 2, "two\nthree\n"],
    ["tail 0", { timestamps: false }, 0, ""],
    ["tail beyond the file", { timestamps: false }, 10, "one\ntwo\nthree\n"],
    ["timestamps", { timestamps: true }, 1, `${B} three\n`],
    ["since", { timestamps: false, sinceMs: Date.parse(B) }, undefined, "two\nthree\n"],
    ["limitBytes", { timestamps: false, limitBytes: 6 }, undefined, "one\ntw"],
  ])("%s", (_name, opts, tail, out) => {
    expect(decode(new LogRenderer(opts).render(tailRecords(records, tail)))).toBe(out);
  });

  it("limitBytes counts across follow chunks", () => {
    const r = new LogRenderer({ timestamps: false, limitBytes: 6 });
    expect(decode(r.render(records.slice(0, 1)))).toBe("one\n");
    expect(r.exhausted).toBe(false);
    expect(decode(r.render(records.slice(1)))).toBe("tw");
    expect(r.exhausted).toBe(true);
    expect(decode(r.render(records))).toBe("");
  });
});

describe("the agent's log query", () => {
  const NOW = Date.parse("2026-01-01T10:00:10Z");
  it.each([
    ["follow=true&timestamps=1&tailLines=3", { follow: true, timestamps: true, previous: false, tailLines: 3 }],
    ["tail=5", { tailLines: 5 }],
    ["tail=all&tailLines=5", { tailLines: undefined }],
    ["sinceSeconds=10", { sinceMs: NOW - 10_000 }],
    ["sinceTime=2026-01-01T10:00:01Z", { sinceMs: Date.parse("2026-01-01T10:00:01Z") }],
    ["limitBytes=1&previous=true", { limitBytes: 1, previous: true }],
  ])("%s", (query, expected) => {
    expect(parseLogQuery(new URLSearchParams(query), NOW)).toMatchObject(expected);
  });

  it.each([
    ["tailLines=x", 400, '{"message": "Unable to decode query."}'],
    ["follow=maybe", 400, '{"message": "Unable to decode query."}'],
    ["sinceTime=yesterday", 400, '{"message": "Unable to decode query."}'],
    ["tailLines=-1", 422, '{"message": "Invalid request."}'],
    ["limitBytes=0", 422, '{"message": "Invalid request."}'],
    ["sinceSeconds=0", 422, '{"message": "Invalid request."}'],
    ["sinceSeconds=5&sinceTime=2026-01-01T10:00:01Z", 422, '{"message": "Invalid request."}'],
  ])("%s is %d", (query, status, message) => {
    expect(() => parseLogQuery(new URLSearchParams(query), NOW)).toThrow(expect.objectContaining({ status, message }));
  });
});
