/**
 * The HTTP/1.1 response reader over tables of wire bytes: each case is fed whole,
 * byte by byte and in two halves, and must give the same status, body and
 * reusability (or the same error) every way. A 64 KiB head fed byte by byte
 * also shows that small pieces cost linear time (the case would take minutes
 * with a copy of all pending bytes per piece).
 */
import { describe, expect, it } from "vitest";
import { BodyTooLargeError, Http1ParseError, Http1ResponseReader, MAX_HEAD_BYTES, type Http1Response } from "./http1-response.ts";

type Outcome = { status: number; body: string; reusable: boolean; header?: [string, string] } | { error: RegExp; tooLarge?: boolean };

interface Case {
  name: string;
  wire: string;
  /** The connection ends after the bytes. */
  eof?: boolean;
  maxBody?: number;
  /** Only fed whole (bytes that arrive after the response in the same read). */
  wholeOnly?: boolean;
  want: Outcome;
}

const ok = (body: string, extra = "") => `HTTP/1.1 200 OK\r\nContent-Type: application/json${extra}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

const CASES: Case[] = [
  { name: "Content-Length", wire: ok('{"a":1}'), want: { status: 200, body: '{"a":1}', reusable: true, header: ["content-type", "application/json"] } },
  { name: "empty body by length", wire: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", want: { status: 200, body: "", reusable: true } },
  { name: "a multi-byte body counted in bytes", wire: ok('"é✓"'), want: { status: 200, body: '"é✓"', reusable: true } },
  { name: "status line without reason", wire: "HTTP/1.1 500\r\nContent-Length: 2\r\n\r\nno", want: { status: 500, body: "no", reusable: true } },
  { name: "empty reason", wire: "HTTP/1.1 403 \r\nContent-Length: 0\r\n\r\n", want: { status: 403, body: "", reusable: true } },
  { name: "Connection: close is not reused", wire: ok("{}", "\r\nConnection: close"), want: { status: 200, body: "{}", reusable: false } },
  { name: "Connection tokens, close among them", wire: ok("{}", "\r\nConnection: keep-alive, Close"), want: { status: 200, body: "{}", reusable: false } },
  { name: "HTTP/1.0 is not reused", wire: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", want: { status: 200, body: "{}", reusable: false } },
  { name: "bytes after the response: not reused", wire: `${ok("{}")}HTTP/1.1`, wholeOnly: true, want: { status: 200, body: "{}", reusable: false } },
  { name: "chunked", wire: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n3\r\n:1}\r\n0\r\n\r\n', want: { status: 200, body: '{"a":1}', reusable: true } },
  { name: "chunked with extensions, hex sizes and trailers", wire: "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\nA;x=y\r\n0123456789\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n", want: { status: 200, body: "0123456789abcdefghijklmnopqrstuvwxyz", reusable: true } },
  { name: "Transfer-Encoding wins over Content-Length", wire: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", want: { status: 200, body: "{}", reusable: true } },
  { name: "no length: the body runs to the end", wire: "HTTP/1.1 200 OK\r\n\r\n{\"x\":", eof: true, want: { status: 200, body: '{"x":', reusable: false } },
  { name: "a coding other than chunked last: to the end", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzz", eof: true, want: { status: 200, body: "zz", reusable: false } },
  { name: "interim 100 and 103 are skipped", wire: `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n${ok("{}")}`, want: { status: 200, body: "{}", reusable: true } },
  { name: "204 has no body", wire: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", want: { status: 204, body: "", reusable: true } },
  { name: "repeated fields are joined", wire: "HTTP/1.1 200 OK\r\nWarning: a\r\nwarning: b\r\nContent-Length: 0\r\n\r\n", want: { status: 200, body: "", reusable: true, header: ["warning", "a, b"] } },
  { name: "equal repeated Content-Length values", wire: "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\n{}", want: { status: 200, body: "{}", reusable: true } },
  { name: "body at the limit", wire: ok("1234"), maxBody: 4, want: { status: 200, body: "1234", reusable: true } },
  // Errors.
  { name: "nothing before the end", wire: "", eof: true, want: { error: /^socket hang up$/ } },
  { name: "half a head before the end", wire: "HTTP/1.1 200 OK\r\nContent-", eof: true, want: { error: /^socket hang up$/ } },
  { name: "a short body before the end", wire: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", eof: true, want: { error: /^unexpected EOF$/ } },
  { name: "a chunked body cut short", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", eof: true, want: { error: /^unexpected EOF$/ } },
  { name: "not HTTP", wire: "<html>hello</html>\r\n\r\n", want: { error: /malformed HTTP status line "<html>hello<\/html>"/ } },
  { name: "HTTP/2 preface", wire: "HTTP/2 200\r\n\r\n", want: { error: /malformed HTTP status line/ } },
  { name: "a header line without a colon", wire: "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", want: { error: /malformed HTTP header line "broken"/ } },
  { name: "obsolete line folding", wire: "HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n", want: { error: /malformed HTTP header line " c"/ } },
  { name: "a space before the colon", wire: "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\n{}", want: { error: /malformed HTTP header line/ } },
  { name: "negative Content-Length", wire: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", want: { error: /invalid Content-Length "-1"/ } },
  { name: "differing Content-Length values", wire: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", want: { error: /invalid Content-Length "2, 3"/ } },
  { name: "a bad chunk size", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", want: { error: /malformed chunked encoding: chunk size "zz"/ } },
  { name: "chunk data longer than its size", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n", want: { error: /no CRLF after chunk data/ } },
  { name: "101 was not asked for", wire: "HTTP/1.1 101 Switching Protocols\r\n\r\n", want: { error: /unexpected 101/ } },
  { name: "body over the limit by length", wire: ok("12345"), maxBody: 4, want: { error: /^response body larger than 4 bytes$/, tooLarge: true } },
  { name: "body over the limit in chunks", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", maxBody: 4, want: { error: /^response body larger than 4 bytes$/, tooLarge: true } },
  { name: "body over the limit to the end", wire: "HTTP/1.1 200 OK\r\n\r\n12345", eof: true, maxBody: 4, want: { error: /^response body larger than 4 bytes$/, tooLarge: true } },
  { name: "a header section over the limit", wire: `HTTP/1.1 200 OK\r\nX: ${"a".repeat(MAX_HEAD_BYTES)}\r\n`, want: { error: /header section larger than 65536 bytes/ } },
];

/** Feeds `parts`; the response, or the error thrown. */
function read(parts: Buffer[], eof: boolean, maxBody: number): Http1Response | Error | undefined {
  const reader = new Http1ResponseReader(maxBody);
  try {
    for (const p of parts) {
      const r = reader.push(p);
      if (r) return r;
    }
    return eof ? reader.end() : undefined;
  } catch (err) {
    return err as Error;
  }
}

function splits(wire: Buffer): Record<string, Buffer[]> {
  const half = wire.length >> 1;
  return {
    whole: [wire],
    "byte by byte": [...wire].map((b) => Buffer.from([b])),
    halves: [wire.subarray(0, half), wire.subarray(half)],
  };
}

describe("Http1ResponseReader", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const ways = Object.entries(splits(Buffer.from(c.wire))).filter(([how]) => !c.wholeOnly || how === "whole");
      for (const [how, parts] of ways) {
        const got = read(parts, c.eof ?? false, c.maxBody ?? 1024);
        const want = c.want;
        if ("error" in want) {
          expect(got, how).toBeInstanceOf(Http1ParseError);
          expect((got as Error).message, how).toMatch(want.error);
          expect(got instanceof BodyTooLargeError, how).toBe(want.tooLarge ?? false);
          continue;
        }
        expect(got, how).toBeDefined();
        expect(got, how).not.toBeInstanceOf(Error);
        const res = got as Http1Response;
        expect({ status: res.status, body: res.body.toString("utf8"), reusable: res.reusable }, how).toEqual({ status: want.status, body: want.body, reusable: want.reusable });
        if (want.header) expect(res.headers.get(want.header[0]), how).toBe(want.header[1]);
      }
    });
  }

  it("waits for the rest of a response (no answer before it is complete)", () => {
    const reader = new Http1ResponseReader(1024);
    expect(reader.push(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n{}"))).toBeUndefined();
    expect(reader.push(Buffer.from("  "))?.body.toString()).toBe("{}  ");
  });
});
