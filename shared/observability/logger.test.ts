import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, logTo, newRequestId, REDACTED, requestLogger, scrubSecrets } from "./logger.ts";

function capture(): { lines: () => Array<Record<string, unknown>>; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString("utf8"));
      cb();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join("")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const KEY = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n";

describe("logger", () => {
  it("logTo turns a pino logger into the LogFn components take, at every level, with and without fields", () => {
    const out = capture();
    const log = logTo(createLogger({ component: "store", destination: out.stream, level: "debug" }));
    log("debug", "d");
    log("info", "i", { member: "m1" });
    log("warn", "w", { token: "secret" });
    log("error", "e");
    const lines = out.lines();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[20, "d"], [30, "i"], [40, "w"], [50, "e"]]);
    expect(lines[1].member).toBe("m1");
    expect(lines[2].token).toBe(REDACTED);
  });

  it("writes JSON lines with level, time, component and message", () => {
    const out = capture();
    const log = createLogger({ component: "apiserver", destination: out.stream });
    log.info({ verb: "get" }, "hello");
    const [line] = out.lines();
    expect(line).toMatchObject({ level: 30, component: "apiserver", verb: "get", msg: "hello" });
    expect(typeof line.time).toBe("string");
  });

  it("redacts Authorization headers, tokens and private keys by path", () => {
    const out = capture();
    const log = createLogger({ destination: out.stream });
    log.info({
      req: { method: "GET", headers: { authorization: "Bearer abc.def", "proxy-authorization": "Basic x", accept: "application/json" } },
      spec: { token: "secret-token" },
      user: { "client-key-data": "a2V5" },
      keyPem: KEY,
      password: "hunter2",
    });
    const [line] = out.lines();
    const text = JSON.stringify(line);
    expect(text).not.toContain("abc.def");
    expect(text).not.toContain("secret-token");
    expect(text).not.toContain("a2V5");
    expect(text).not.toContain("MIGHAgEA");
    expect(text).not.toContain("hunter2");
    expect(line.req).toEqual({ method: "GET", headers: { authorization: REDACTED, "proxy-authorization": REDACTED, accept: "application/json" } });
    expect(line.spec).toEqual({ token: REDACTED });
  });

  it("masks bearer tokens and keys in messages", () => {
    const out = capture();
    const log = createLogger({ destination: out.stream });
    log.warn("upstream said: Authorization: Bearer eyJhbGciOi.eyJzdWIi.sig rejected");
    log.warn({ a: 1 }, "key was %s", KEY);
    const [first, second] = out.lines();
    expect(first.msg).toBe(`upstream said: Authorization: Bearer ${REDACTED} rejected`);
    expect(second.msg).not.toContain("MIGHAgEA");
  });

  it("scrubSecrets leaves other text alone", () => {
    expect(scrubSecrets("no secrets here")).toBe("no secrets here");
    expect(scrubSecrets("bearer abc")).toBe(`bearer ${REDACTED}`);
  });

  it("request child logger carries the request id", () => {
    const out = capture();
    const root = createLogger({ destination: out.stream });
    const { logger, requestId } = requestLogger(root, "req-123");
    expect(requestId).toBe("req-123");
    logger.info("in request");
    expect(out.lines()[0]).toMatchObject({ requestId: "req-123", msg: "in request" });
  });

  it("makes a new id for a missing or malformed incoming id", () => {
    const root = createLogger({ destination: capture().stream });
    const a = requestLogger(root);
    const b = requestLogger(root, "bad id\nwith newline");
    expect(a.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.requestId).not.toBe(b.requestId);
    expect(newRequestId()).not.toBe(newRequestId());
  });

  it("honours the level", () => {
    const out = capture();
    const log = createLogger({ destination: out.stream, level: "warn" });
    log.info("hidden");
    log.error("shown");
    expect(out.lines().map((l) => l.msg)).toEqual(["shown"]);
  });
});
