/** Where the recorded answer headers go: node response, Response, or the head of a direct body. */
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { answerRecord, markResponse } from "../../endpoints/answer-record.ts";
import { offerDirectBody } from "../../endpoints/direct-body.ts";
import { answerHeader, applyAnswerHeaders } from "./response-headers.ts";

type Out = "none" | "fresh" | "head written";
interface Case {
  name: string;
  out: Out;
  directBody?: boolean;
  /** A fetched-like Response whose headers are immutable. */
  immutable?: boolean;
  /** Where the headers must land. */
  on: "node response" | "Response" | "nowhere";
  /** The same Response object comes back. */
  same: boolean;
}

const CASES: Case[] = [
  { name: "node response before its head: there (the Response keeps its header record)", out: "fresh", on: "node response", same: true },
  { name: "a body written directly: on the Response, whose headers form the one-piece head", out: "fresh", directBody: true, on: "Response", same: true },
  { name: "no node response (the app driven in process): on the Response", out: "none", on: "Response", same: true },
  { name: "node response whose head is written: on the Response", out: "head written", on: "Response", same: true },
  { name: "immutable headers: on a copy of the Response", out: "none", immutable: true, on: "Response", same: false },
  { name: "immutable headers and a direct body: on a copy", out: "fresh", directBody: true, immutable: true, on: "Response", same: false },
];

const RECORDED: [string, string][] = [
  ["Audit-ID", "id-1"],
  ["X-Test-PF-FlowSchema-UID", "fs-uid"],
  ["X-Test-PF-PriorityLevel-UID", "pl-uid"],
];

function nodeResponse(out: Out): ServerResponse | undefined {
  if (out === "none") return undefined;
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  if (out === "head written") res.writeHead(200);
  return res;
}

/**
 * A fetched response's headers are immutable. It is fetched (a data: URL, no network)
 * rather than made by a static of the global Response, which the node adapter replaces
 * with its own class in a process that served requests before.
 */
function fetchedAnswer(): Promise<Response> {
  return fetch("data:text/plain,body");
}

function answer(): Response {
  return new Response("body", { status: 200, headers: { "content-type": "text/plain" } });
}

function caseAnswer(immutable: boolean | undefined): Promise<Response> | Response {
  return immutable ? fetchedAnswer() : answer();
}

describe("applyAnswerHeaders", () => {
  it.each(CASES)("$name", async (c) => {
    const request = new Request("https://127.0.0.1/api/v1/pods");
    const outgoing = nodeResponse(c.out);
    const response = await caseAnswer(c.immutable);
    if (c.directBody) offerDirectBody(request, response.body ?? new ReadableStream(), { attach: () => undefined });
    const ctx = { request, outgoing, answerHeaders: [] as string[] };
    for (const [name, value] of RECORDED) answerHeader(ctx, name, value);

    const applied = applyAnswerHeaders(ctx, response);

    expect(applied === response).toBe(c.same);
    expect(applied.status).toBe(response.status);
    for (const [name, value] of RECORDED) {
      expect(applied.headers.get(name)).toBe(c.on === "Response" ? value : null);
      if (outgoing && c.out === "fresh") expect(outgoing.getHeader(name)).toBe(c.on === "node response" ? value : undefined);
    }
    // A node response that does not take them keeps no header table at all.
    if (outgoing && c.on !== "node response" && c.out === "fresh") expect(outgoing.getHeaderNames()).toEqual([]);
    if (!c.same) expect(await applied.text()).toBe(await (await caseAnswer(c.immutable)).text());
  });

  it("leaves the answer untouched when nothing was recorded", () => {
    const outgoing = nodeResponse("fresh");
    const response = answer();
    const applied = applyAnswerHeaders({ request: new Request("https://127.0.0.1/"), outgoing, answerHeaders: [] }, response);
    expect(applied).toBe(response);
    expect(outgoing?.getHeaderNames()).toEqual([]);
    expect([...response.headers.keys()]).toEqual(["content-type"]);
  });

  it("applies only what was recorded after an encoded body's Response took the answer headers into its record", () => {
    const outgoing = nodeResponse("fresh");
    const ctx = { request: new Request("https://127.0.0.1/api/v1/pods"), outgoing, answerHeaders: [] as string[] };
    for (const [name, value] of RECORDED) answerHeader(ctx, name, value);
    const taken = ctx.answerHeaders.length;
    const response = markResponse(new Response("body", { headers: answerRecord(ctx.answerHeaders, { "content-type": "text/plain" }) }), taken, "body");
    expect(applyAnswerHeaders(ctx, response)).toBe(response);
    // The head is written in one piece from the Response's record: no header table on the node response.
    expect(outgoing?.getHeaderNames()).toEqual([]);
    for (const [name, value] of RECORDED) expect(response.headers.get(name)).toBe(value);

    answerHeader(ctx, "warning", '299 - "later"');
    applyAnswerHeaders(ctx, response);
    expect(outgoing?.getHeaderNames()).toEqual(["warning"]);
  });

  it("a later record of the same name wins, on either target", () => {
    for (const out of ["fresh", "none"] as const) {
      const outgoing = nodeResponse(out);
      const ctx = { request: new Request("https://127.0.0.1/"), outgoing, answerHeaders: [] as string[] };
      answerHeader(ctx, "warning", '299 - "old"');
      answerHeader(ctx, "warning", '299 - "new"');
      const applied = applyAnswerHeaders(ctx, answer());
      expect(outgoing ? outgoing.getHeader("warning") : applied.headers.get("warning")).toBe('299 - "new"');
    }
  });

  it("adds a recorded Warning beside a proxied backend's Warning headers, on either target", () => {
    for (const out of ["fresh", "none"] as const) {
      const outgoing = nodeResponse(out);
      const ctx = { request: new Request("https://127.0.0.1/"), outgoing, answerHeaders: [] as string[] };
      answerHeader(ctx, "warning", '299 - "ours"');
      answerHeader(ctx, "Audit-ID", "id-2");
      const backend = new Response("body", { headers: { warning: '299 - "backend"' } });
      const applied = applyAnswerHeaders(ctx, backend);
      expect(applied.headers.get("warning")).toBe('299 - "backend", 299 - "ours"');
      expect(applied.headers.get("audit-id")).toBe("id-2");
      if (outgoing) expect(outgoing.getHeaderNames()).toEqual([]);
    }
  });
});
