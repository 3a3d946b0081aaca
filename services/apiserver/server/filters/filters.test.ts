/** Each filter on its own, driven with a request context as the chain builds it. */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { forbidden, StatusError, unauthorized } from "../../../../shared/api/status.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { chain, createRequestContext, type Handler, type RequestContext } from "./context.ts";
import { InFlightLimiter } from "./in-flight-limiter.ts";
import { applyAnswerHeaders } from "./response-headers.ts";
import { withAudit, type AuditEvent } from "./with-audit.ts";
import { withAuthentication } from "./with-authentication.ts";
import { withAuthorization } from "./with-authorization.ts";
import { withImpersonation } from "./with-impersonation.ts";
import { withPriorityAndFairness } from "./with-priority-and-fairness.ts";
import { withRequestInfo } from "./with-request-info.ts";
import { withTimeout } from "./with-timeout.ts";
import { withWarnings } from "./with-warnings.ts";

const alice: UserInfo = { username: "alice", groups: ["system:authenticated"] };
const ok: Handler = async () => new Response("ok");

function ctxFor(method: string, path: string, headers: Record<string, string> = {}): RequestContext {
  return createRequestContext(new Request(`https://127.0.0.1${path}`, { method, headers }), undefined, undefined);
}

async function statusOf(p: Promise<Response>): Promise<StatusError["status"]> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err.status;
    throw err;
  }
  throw new Error("expected a Status error");
}

describe("request context", () => {
  it.each([
    [{}, undefined],
    [{ "audit-id": "0b5ae7e4-4e3c-4bb6-8a08-b6c2b1f0a2c7" }, "0b5ae7e4-4e3c-4bb6-8a08-b6c2b1f0a2c7"],
    [{ "Audit-ID": "my-id.1" }, "my-id.1"],
    [{ "audit-id": "has space" }, undefined],
    [{ "audit-id": "x".repeat(257) }, undefined],
  ])("request id from %j", (headers, kept) => {
    const ctx = ctxFor("GET", "/", headers);
    if (kept) expect(ctx.requestId).toBe(kept);
    else expect(ctx.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("binds the request id to every log line", () => {
    const lines: Array<Record<string, unknown>> = [];
    const ctx = createRequestContext(new Request("https://127.0.0.1/", { headers: { "audit-id": "abc" } }), undefined, (level, msg, fields) => lines.push({ level, msg, ...fields }));
    ctx.log("info", "one", { a: 1 });
    ctx.log("debug", "two");
    expect(lines).toEqual([
      { level: "info", msg: "one", a: 1, auditID: "abc" },
      { level: "debug", msg: "two", auditID: "abc" },
    ]);
  });
});

describe("filters", () => {
  it("with-request-info parses the request; a malformed path is its Status", async () => {
    const ctx = ctxFor("GET", "/api/v1/namespaces/default/pods?watch=true");
    await chain(ok, [withRequestInfo])(ctx);
    expect(ctx.info).toMatchObject({ verb: "watch", resource: "pods", namespace: "default" });
  });

  it.each([
    [undefined, { username: "system:anonymous", groups: ["system:unauthenticated"] }],
    [alice, alice],
  ])("with-authentication: %j acts as %j", async (user, acting) => {
    const ctx = ctxFor("GET", "/api/v1/pods");
    await chain(ok, [withRequestInfo, withAuthentication(async () => user)])(ctx);
    expect(ctx.user).toEqual(acting);
  });

  it("with-authentication passes a request authenticated synchronously on at once, and ends one refused synchronously", async () => {
    let reached = false;
    const next: Handler = () => {
      reached = true;
      return Promise.resolve(new Response("ok"));
    };
    const ctx = ctxFor("GET", "/api/v1/pods");
    const answer = chain(next, [withRequestInfo, withAuthentication(() => alice)])(ctx);
    expect(reached).toBe(true);
    expect(ctx.user).toBe(alice);
    expect((await answer).status).toBe(200);
    const failed: unknown[] = [];
    const refuse = withAuthentication(() => {
      throw unauthorized();
    }, (_ctx, err) => failed.push(err));
    expect((await statusOf(Promise.resolve().then(() => chain(ok, [withRequestInfo, refuse])(ctxFor("GET", "/api/v1/pods"))))).code).toBe(401);
    expect(failed).toHaveLength(1);
  });

  it("with-authentication ends the request on a 401", async () => {
    const reached: string[] = [];
    const s = await statusOf(chain(async () => (reached.push("handler"), new Response()), [withRequestInfo, withAuthentication(async () => Promise.reject(unauthorized()))])(ctxFor("GET", "/api/v1/pods")));
    expect(s.code).toBe(401);
    expect(reached).toEqual([]);
  });

  it("with-audit puts the event on the context and reports both stages to the sink", async () => {
    const events: AuditEvent[] = [];
    const ctx = ctxFor("POST", "/api/v1/namespaces/ns/configmaps", { "user-agent": "t/1" });
    ctx.user = alice;
    await chain(async () => new Response(null, { status: 201 }), [withRequestInfo, withAudit((e) => events.push(e))])(ctx);
    expect(ctx.audit).toMatchObject({ auditID: ctx.requestId, verb: "create", user: alice, userAgent: "t/1", objectRef: { resource: "configmaps", namespace: "ns", apiVersion: "v1" } });
    expect(events.map((e) => [e.stage, e.responseStatus?.code])).toEqual([
      ["RequestReceived", undefined],
      ["ResponseComplete", 201],
    ]);
  });

  it("with-impersonation replaces the user and records it in the audit event", async () => {
    const bob: UserInfo = { username: "bob", groups: ["system:authenticated"] };
    const ctx = ctxFor("GET", "/api/v1/pods");
    ctx.user = alice;
    await chain(ok, [withRequestInfo, withAudit(), withImpersonation(async () => bob)])(ctx);
    expect(ctx.user).toBe(bob);
    expect(ctx.audit?.user).toBe(alice);
    expect(ctx.audit?.impersonatedUser).toBe(bob);
  });

  it("with-impersonation passes a request that asks for none on at once, without a turn of its own", async () => {
    const ctx = ctxFor("GET", "/api/v1/pods");
    ctx.user = alice;
    let reached = false;
    const next: Handler = () => {
      reached = true;
      return Promise.resolve(new Response("ok"));
    };
    const answer = withImpersonation((user) => user)(next)(ctx);
    expect(reached).toBe(true);
    expect((await answer).status).toBe(200);
    expect(ctx.user).toBe(alice);
  });

  it("with-impersonation ends the request with the refusal of an impersonation", async () => {
    const ctx = ctxFor("GET", "/api/v1/pods");
    ctx.user = alice;
    const refuse = withImpersonation(async () => {
      throw forbidden({ user: "alice", verb: "impersonate", resource: "users", namespace: "", name: "bob" });
    });
    expect((await statusOf(refuse(ok)(ctx))).code).toBe(403);
  });

  it("with-authorization passes a request allowed synchronously on at once, and ends one denied synchronously", async () => {
    const ctx = ctxFor("GET", "/api/v1/namespaces/ns/pods/p");
    ctx.user = alice;
    let reached = false;
    const next: Handler = () => {
      reached = true;
      return Promise.resolve(new Response("ok"));
    };
    const answer = chain(next, [withRequestInfo, withAuthorization(() => "allowed by test")])(ctx);
    expect(reached).toBe(true);
    expect((await answer).status).toBe(200);
    const denied = withAuthorization((u, info) => {
      throw forbidden({ user: u.username, verb: info.verb, resource: info.resource, namespace: info.namespace, name: info.name });
    });
    expect((await statusOf(Promise.resolve().then(() => chain(ok, [withRequestInfo, denied])(ctx)))).code).toBe(403);
  });

  it("with-authorization lets allowed requests through and ends denied ones", async () => {
    const ctx = ctxFor("DELETE", "/api/v1/namespaces/ns/pods/p");
    ctx.user = alice;
    const deny = withAuthorization(async (u, info) => {
      if (info.verb === "delete") throw forbidden({ user: u.username, verb: info.verb, resource: info.resource, namespace: info.namespace, name: info.name });
    });
    expect((await statusOf(chain(ok, [withRequestInfo, deny])(ctx))).code).toBe(403);
    const get = ctxFor("GET", "/api/v1/namespaces/ns/pods/p");
    get.user = alice;
    expect((await chain(ok, [withRequestInfo, deny])(get)).status).toBe(200);
  });

  it("with-warnings records one deduplicated Warning answer header on successes and on Status errors", async () => {
    const warn = (fail: boolean): Handler => async (ctx) => {
      ctx.warnings.push('299 - "a"', '299 - "b"', '299 - "a"');
      if (fail) throw forbidden({ user: "alice", verb: "get", path: "/" });
      return new Response("ok");
    };
    const answered = async (fail: boolean) => {
      const ctx = ctxFor("GET", "/");
      return applyAnswerHeaders(ctx, await chain(warn(fail), [withWarnings])(ctx));
    };
    const good = await answered(false);
    expect(good.headers.get("warning")).toBe('299 - "a", 299 - "b"');
    const bad = await answered(true);
    expect(bad.status).toBe(403);
    expect(bad.headers.get("warning")).toBe('299 - "a", 299 - "b"');
    expect(await bad.json()).toMatchObject({ kind: "Status", code: 403, reason: "Forbidden" });
  });

  it("with-priority-and-fairness gives the seat back when the deadline aborts the request", async () => {
    const limiter = new InFlightLimiter({ maxReadOnly: 1, maxMutating: 1 });
    let finish: (() => void) | undefined;
    const stalled: Handler = () => new Promise((resolve) => (finish = () => resolve(new Response("late"))));
    const filters = [withRequestInfo, withTimeout(50), withWarnings, withPriorityAndFairness(limiter)];
    const ctx = ctxFor("POST", "/api/v1/namespaces/ns/configmaps");
    ctx.user = alice;
    const timedOut = await chain(stalled, filters)(ctx);
    expect(timedOut.status).toBe(504);
    expect(timedOut.headers.get("connection")).toBe("close");
    expect(await timedOut.json()).toMatchObject({ code: 504, reason: "Timeout", message: "Timeout: request did not complete within requested timeout - context deadline exceeded" });
    expect(limiter.seatsInUse("mutating")).toBe(0);
    finish?.();
  });

  it("with-priority-and-fairness holds a streamed response's seat until it closes or the hold limit passes", async () => {
    const limiter = new InFlightLimiter({ maxReadOnly: 1, maxMutating: 1 });
    const open = () => {
      const ctx = ctxFor("GET", "/api/v1/namespaces/ns/configmaps");
      ctx.user = alice;
      const out = Object.assign(new EventEmitter(), { closed: false, destroyed: false });
      ctx.outgoing = out as unknown as RequestContext["outgoing"];
      return { ctx, out };
    };
    const closing = open();
    await chain(ok, [withRequestInfo, withPriorityAndFairness(limiter, undefined, 60_000)])(closing.ctx);
    expect(limiter.seatsInUse("readOnly")).toBe(1);
    closing.out.emit("close");
    expect(limiter.seatsInUse("readOnly")).toBe(0);
    closing.out.emit("close");
    expect(limiter.seatsInUse("readOnly")).toBe(0);

    const stalled = open();
    await chain(ok, [withRequestInfo, withPriorityAndFairness(limiter, undefined, 30)])(stalled.ctx);
    expect(limiter.seatsInUse("readOnly")).toBe(1);
    await new Promise((r) => setTimeout(r, 80));
    expect(limiter.seatsInUse("readOnly")).toBe(0);
    expect(stalled.out.listenerCount("close")).toBe(0);
  });

  it("with-priority-and-fairness does not count long-running requests", async () => {
    const limiter = new InFlightLimiter({ maxReadOnly: 1, maxMutating: 1 });
    const seen: number[] = [];
    const ctx = ctxFor("GET", "/api/v1/pods?watch=1");
    ctx.user = alice;
    await chain(async () => (seen.push(limiter.counts.readOnly), new Response()), [withRequestInfo, withPriorityAndFairness(limiter)])(ctx);
    expect(seen).toEqual([0]);
  });
});
