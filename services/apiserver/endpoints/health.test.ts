import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { evaluateHealth, evaluateSingleCheck, healthRoutes, HealthRegistry, rateLimitedCheck, type CheckResult, type EvaluateOptions, type HealthResponse } from "./health.ts";

const base: EvaluateOptions = { endpoint: "readyz", verbose: false, exclude: [], now: 100_000, startedAt: 0, livezGracePeriodMs: 0 };
const ok = (name: string): CheckResult => ({ name });
const bad = (name: string, error = "boom"): CheckResult => ({ name, error });

describe("evaluateHealth", () => {
  const cases: Array<[string, CheckResult[], Partial<EvaluateOptions>, number, string]> = [
    ["all ok, terse", [ok("ping"), ok("etcd")], {}, 200, "ok"],
    ["all ok, verbose", [ok("ping"), ok("etcd")], { verbose: true }, 200, "[+]ping ok\n[+]etcd ok\nreadyz check passed\n"],
    ["livez verbose", [ok("ping")], { endpoint: "livez", verbose: true }, 200, "[+]ping ok\nlivez check passed\n"],
    ["healthz verbose", [ok("ping")], { endpoint: "healthz", verbose: true }, 200, "[+]ping ok\nhealthz check passed\n"],
    ["failure is always verbose", [ok("ping"), bad("etcd")], {}, 500, "[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n"],
    ["livez failure", [bad("etcd")], { endpoint: "livez" }, 500, "[-]etcd failed: reason withheld\nlivez check failed\n"],
    ["exclude a failing check", [ok("ping"), bad("etcd")], { exclude: ["etcd"] }, 200, "ok"],
    ["exclude, verbose", [ok("ping"), bad("etcd")], { exclude: ["etcd"], verbose: true }, 200, "[+]ping ok\n[+]etcd excluded: ok\nreadyz check passed\n"],
    [
      "unknown exclusions warn, sorted and quoted",
      [ok("ping")],
      { exclude: ["zz", "aa"], verbose: true },
      200,
      '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "aa","zz"\nreadyz check passed\n',
    ],
    ["unknown exclusion, terse", [ok("ping")], { exclude: ["nope"] }, 200, "ok"],
    [
      "unknown exclusion on failure",
      [bad("etcd")],
      { exclude: ["nope"] },
      500,
      '[-]etcd failed: reason withheld\nwarn: some health checks cannot be excluded: no matches for "nope"\nreadyz check failed\n',
    ],
    ["repeated exclude counts once", [ok("a"), bad("b")], { exclude: ["b", "b"], verbose: true }, 200, "[+]a ok\n[+]b excluded: ok\nreadyz check passed\n"],
    ["livez grace period hides failures", [bad("etcd")], { endpoint: "livez", now: 5_000, livezGracePeriodMs: 10_000, verbose: true }, 200, "[+]etcd ok\nlivez check passed\n"],
    ["livez grace period over", [bad("etcd")], { endpoint: "livez", now: 10_000, livezGracePeriodMs: 10_000 }, 500, "[-]etcd failed: reason withheld\nlivez check failed\n"],
    ["grace period is for livez only", [bad("etcd")], { endpoint: "readyz", now: 5_000, livezGracePeriodMs: 10_000 }, 500, "[-]etcd failed: reason withheld\nreadyz check failed\n"],
    ["no checks", [], { verbose: true }, 200, "readyz check passed\n"],
  ];
  it.each(cases)("%s", (_n, checks, extra, status, body) => {
    const r = evaluateHealth(checks, { ...base, ...extra });
    expect(r.status).toBe(status);
    expect(r.body).toBe(body);
    expect(r.headers["Content-Type"]).toBe("text/plain; charset=utf-8");
    expect(r.headers["X-Content-Type-Options"]).toBe("nosniff");
  });

  it("keeps the reasons for the log only", () => {
    const r = evaluateHealth([bad("etcd", "connection refused"), bad("informer-sync", "2 informers not started yet")], base);
    expect(r.failed).toEqual(["etcd", "informer-sync"]);
    expect(r.logOutput).toBe("[-]etcd failed: connection refused\n[-]informer-sync failed: 2 informers not started yet\n");
    expect(r.body).not.toContain("connection refused");
  });
});

describe("evaluateSingleCheck", () => {
  it("ok and failure bodies", () => {
    expect(evaluateSingleCheck(ok("etcd"), base)).toMatchObject({ status: 200, body: "ok" });
    expect(evaluateSingleCheck(bad("etcd", "connection refused"), base)).toMatchObject({ status: 500, body: "internal server error: connection refused\n" });
  });
  it("livez grace applies to single checks", () => {
    expect(evaluateSingleCheck(bad("etcd"), { ...base, endpoint: "livez", now: 1, livezGracePeriodMs: 10 }).status).toBe(200);
  });
});

describe("HealthRegistry", () => {
  it("has ping and log by default and shutdown on readyz", () => {
    const r = HealthRegistry.withDefaults();
    r.add("etcd", () => {});
    r.add("informer-sync", () => {}, ["readyz"]);
    expect(r.names("livez")).toEqual(["ping", "log", "etcd"]);
    expect(r.names("readyz")).toEqual(["ping", "log", "etcd", "informer-sync", "shutdown"]);
    expect(r.names("healthz")).toEqual(["ping", "log", "etcd"]);
  });

  it("rejects duplicate and reserved names", () => {
    const r = HealthRegistry.withDefaults();
    expect(() => r.add("ping", () => {})).toThrow(/already registered/);
    expect(() => r.add("shutdown", () => {})).toThrow(/invalid/);
    expect(() => r.add("", () => {})).toThrow(/invalid/);
    expect(() => r.add("a b", () => {})).toThrow(/invalid/);
    r.add("only-ready", () => {}, ["readyz"]);
    expect(() => r.add("only-ready", () => {}, ["livez"])).not.toThrow();
  });

  it("does not run excluded checks", async () => {
    let calls = 0;
    const r = new HealthRegistry();
    r.add("counted", () => {
      calls++;
    });
    await r.respond("livez", { verbose: false, exclude: ["counted"] });
    expect(calls).toBe(0);
    await r.respond("livez", { verbose: false, exclude: [] });
    expect(calls).toBe(1);
  });

  it("async failures and timeouts fail the check", async () => {
    const r = new HealthRegistry({ checkTimeoutMs: 20 });
    r.add("async-bad", async () => {
      throw new Error("store unreachable");
    });
    r.add("hangs", () => new Promise<void>(() => {}));
    const results = await r.run("livez");
    expect(results).toEqual([
      { name: "async-bad", error: "store unreachable" },
      { name: "hangs", error: "check timed out after 20ms" },
    ]);
  });

  it("post-start hooks fail until complete", async () => {
    const r = new HealthRegistry();
    const hook = r.addPostStartHook("start-informers");
    expect(hook.name).toBe("poststarthook/start-informers");
    expect((await r.respondSingle("readyz", "poststarthook/start-informers"))?.body).toBe("internal server error: not finished\n");
    hook.fail("informers not synced");
    expect((await r.respondSingle("readyz", "poststarthook/start-informers"))?.body).toBe("internal server error: informers not synced\n");
    hook.complete();
    expect((await r.respondSingle("readyz", "poststarthook/start-informers"))?.body).toBe("ok");
  });

  it("shutdown: readyz fails at once, livez stays ok, phases follow the delay", async () => {
    let now = 1_000;
    const r = HealthRegistry.withDefaults({ clock: () => now, shutdownDelayMs: 5_000 });
    expect(r.shutdownPhase()).toBe("running");
    expect((await r.respond("readyz", { verbose: false, exclude: [] })).status).toBe(200);
    r.beginShutdown();
    now += 1_000;
    const ready = await r.respond("readyz", { verbose: false, exclude: [] });
    expect(ready.status).toBe(500);
    expect(ready.body).toBe("[+]ping ok\n[+]log ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n");
    expect((await r.respond("livez", { verbose: false, exclude: [] })).body).toBe("ok");
    expect(r.shutdownPhase()).toBe("draining");
    expect((await r.respondSingle("readyz", "shutdown"))?.body).toBe("internal server error: process is shutting down\n");
    now += 4_000;
    expect(r.shutdownPhase()).toBe("stopped");
    r.beginShutdown(now);
    expect(r.shutdownPhase()).toBe("stopped");
  });

  it("livez grace period from start", async () => {
    let now = 0;
    const r = new HealthRegistry({ clock: () => now, livezGracePeriodMs: 10_000 });
    r.add("etcd", () => {
      throw new Error("not yet");
    });
    now = 9_999;
    expect((await r.respond("livez", { verbose: false, exclude: [] })).status).toBe(200);
    expect((await r.respond("readyz", { verbose: false, exclude: [] })).status).toBe(500);
    now = 10_000;
    expect((await r.respond("livez", { verbose: false, exclude: [] })).status).toBe(500);
  });

  it("unknown single check", async () => {
    const r = HealthRegistry.withDefaults();
    expect(await r.respondSingle("livez", "nope")).toBeUndefined();
    expect(await r.respondSingle("livez", "shutdown")).toBeUndefined();
  });
});

describe("rateLimitedCheck", () => {
  it.each([
    { name: "a call within the interval answers the last success without a run", calls: [0, 500, 999], outcomes: ["ok"], runs: 1, answers: ["ok", "ok", "ok"] },
    { name: "a call at the interval runs again", calls: [0, 1000, 1500], outcomes: ["ok", "down"], runs: 2, answers: ["ok", "down", "down"] },
    { name: "a failure is kept until the next run", calls: [0, 200, 1200], outcomes: ["down", "ok"], runs: 2, answers: ["down", "down", "ok"] },
  ])("$name", async ({ calls, outcomes, runs, answers }) => {
    let now = 0;
    let ran = 0;
    const check = rateLimitedCheck(async () => {
      if (outcomes[ran++] === "down") throw new Error("store down");
    }, 1000, () => now);
    const got: string[] = [];
    for (const at of calls) {
      now = at;
      got.push(await Promise.resolve(check()).then(() => "ok", () => "down"));
    }
    expect(got).toEqual(answers);
    expect(ran).toBe(runs);
  });
});

describe("healthRoutes", () => {
  function app(): { app: Hono; registry: HealthRegistry; failures: Array<[string, HealthResponse]>; setEtcd(err?: string): void } {
    let etcdError: string | undefined;
    const registry = HealthRegistry.withDefaults();
    registry.add("etcd", () => {
      if (etcdError) throw new Error(etcdError);
    });
    registry.addPostStartHook("ready-hook").complete();
    const failures: Array<[string, HealthResponse]> = [];
    const a = new Hono();
    healthRoutes(a, registry, { onFailure: (e, r) => failures.push([e, r]) });
    return { app: a, registry, failures, setEtcd: (err) => (etcdError = err) };
  }

  it("serves ok and verbose output", async () => {
    const { app: a } = app();
    const terse = await a.request("/livez");
    expect(terse.status).toBe(200);
    expect(await terse.text()).toBe("ok");
    expect(terse.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(terse.headers.get("x-content-type-options")).toBe("nosniff");
    const verbose = await a.request("/readyz?verbose");
    expect(await verbose.text()).toBe("[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/ready-hook ok\n[+]shutdown ok\nreadyz check passed\n");
    expect(await (await a.request("/healthz?verbose=1")).text()).toBe(
      "[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]poststarthook/ready-hook ok\nhealthz check passed\n",
    );
  });

  it("reports failures with 500 and withheld reasons", async () => {
    const { app: a, setEtcd, failures } = app();
    setEtcd("dial tcp 127.0.0.1:2379: connection refused");
    const res = await a.request("/readyz");
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[+]poststarthook/ready-hook ok\n[+]shutdown ok\nreadyz check failed\n");
    expect(failures[0][0]).toBe("readyz");
    expect(failures[0][1].logOutput).toContain("connection refused");
    const excluded = await a.request("/readyz?exclude=etcd&exclude=nothing&verbose");
    expect(excluded.status).toBe(200);
    expect(await excluded.text()).toBe(
      '[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n[+]poststarthook/ready-hook ok\n[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for "nothing"\nreadyz check passed\n',
    );
  });

  it("serves single checks, including names with a slash", async () => {
    const { app: a, setEtcd } = app();
    expect(await (await a.request("/readyz/etcd")).text()).toBe("ok");
    expect(await (await a.request("/livez/poststarthook/ready-hook")).text()).toBe("ok");
    setEtcd("timeout");
    const res = await a.request("/livez/etcd");
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("internal server error: timeout\n");
    expect((await a.request("/readyz/shutdown")).status).toBe(200);
    expect((await a.request("/livez/shutdown")).status).toBe(404);
    expect((await a.request("/livez/unknown")).status).toBe(404);
  });

  it("readyz fails after shutdown begins while livez stays ok", async () => {
    const { app: a, registry } = app();
    registry.beginShutdown();
    const ready = await a.request("/readyz");
    expect(ready.status).toBe(500);
    expect(await ready.text()).toContain("[-]shutdown failed: reason withheld\n");
    expect((await a.request("/livez")).status).toBe(200);
  });

  it("answers HEAD", async () => {
    const { app: a } = app();
    expect((await a.request("/livez", { method: "HEAD" })).status).toBe(200);
  });
});
