/**
 * Runs k6 scenario scripts without k6: each VU is a worker thread (vu-worker.ts)
 * whose k6 calls reach a real server over node:https from this thread, so checks
 * and thresholds meet real answers. A run is k6's life cycle at a small size:
 * setup() once, then every scenario of `options.scenarios` at the same time, one
 * VU each (its `exec` function, `default` without one): VU executors for
 * `iterations` iterations, arrival-rate executors for `arrivals` iterations spaced
 * `timeUnit / rate` apart; then teardown(data), and the thresholds of `options`
 * evaluated over every sample (thresholds.ts).
 *
 * TLS: `ca` stands for the system trust store k6 would use; the script's
 * `insecureSkipTLSVerify` and first `tlsAuth` entry apply as in k6.
 */
import { request } from "node:https";
import { join } from "node:path";
import { MessageChannel, Worker } from "node:worker_threads";
import { BUILTIN_METRICS, type MetricType, type Sample } from "./metrics.ts";
import type { BridgeRequest, BridgeResponse } from "./runtime.ts";
import { evaluateThresholds, type ThresholdResult } from "./thresholds.ts";
import type { VuCall, VuMessage } from "./vu-worker.ts";
import { durationMs } from "./k6-http.ts";

export interface K6RunOptions {
  /** Absolute path of the scenario script. */
  script: string;
  /** __ENV of the script (k6 -e NAME=value). */
  env: Record<string, string>;
  /** PEM CA(s) trusted as the system's. */
  ca?: string;
  /** Iterations of each VU-driven scenario (default 1). */
  iterations?: number;
  /** Iterations of each arrival-rate scenario (default 3). */
  arrivals?: number;
}

export interface ScenarioRun {
  name: string;
  exec: string;
  iterations: number;
  /** Errors thrown by iterations (k6 logs them and goes on). */
  errors: string[];
}

export interface K6RunResult {
  scenarios: ScenarioRun[];
  samples: Sample[];
  thresholds: ThresholdResult[];
  checks: { passed: number; failed: number; failedNames: string[] };
}

interface ScenarioConfig {
  executor?: string;
  exec?: string;
  rate?: number;
  timeUnit?: string;
}

interface ScriptOptions {
  scenarios?: Record<string, ScenarioConfig>;
  thresholds?: Record<string, string[]>;
}

const VU_WORKER = join(import.meta.dirname, "vu-worker.ts");

function sendOverHttps(req: BridgeRequest, ca: string | undefined): Promise<BridgeResponse> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: Omit<BridgeResponse, "durationMs">) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, durationMs: performance.now() - started });
    };
    const headers = { ...req.headers, ...(req.body === undefined ? {} : { "Content-Length": String(Buffer.byteLength(req.body)) }) };
    const r = request(req.url, { method: req.method, headers, ca, cert: req.tls.cert, key: req.tls.key, rejectUnauthorized: !req.tls.insecureSkipTLSVerify, timeout: req.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase())] = Array.isArray(v) ? v.join(", ") : v;
        finish({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: flat });
      });
      res.on("error", (err) => finish({ status: 0, body: "", headers: {}, error: err.message }));
    });
    r.on("timeout", () => r.destroy(new Error(`request timeout after ${req.timeoutMs} ms`)));
    r.on("error", (err) => finish({ status: 0, body: "", headers: {}, error: err.message }));
    r.end(req.body);
  });
}

/** One VU: its worker, the bridge serving its http calls, and call(). */
class Vu {
  private readonly worker: Worker;
  private readonly pending: Array<(m: VuMessage) => void> = [];
  readonly ready: Promise<{ options: ScriptOptions }>;
  readonly types = new Map<string, MetricType>();

  constructor(run: K6RunOptions, vu: number) {
    const channel = new MessageChannel();
    const flagBuffer = new SharedArrayBuffer(4);
    const flag = new Int32Array(flagBuffer);
    channel.port1.on("message", (req: BridgeRequest) => {
      void sendOverHttps(req, run.ca).then((res) => {
        channel.port1.postMessage(res);
        Atomics.store(flag, 0, 1);
        Atomics.notify(flag, 0);
      });
    });
    channel.port1.unref();
    const bootstrap = `import("tsx/esm/api").then((m) => { m.register(); return import(${JSON.stringify(`file://${VU_WORKER}`)}); })`;
    this.worker = new Worker(bootstrap, { eval: true, workerData: { script: run.script, env: run.env, vu, port: channel.port2, flag: flagBuffer }, transferList: [channel.port2] });
    this.ready = new Promise((resolve, reject) => {
      this.worker.once("error", reject);
      this.pending.push((m) => {
        if (m.type === "ready") resolve({ options: m.options as ScriptOptions });
        else reject(new Error(`VU ${vu} could not load ${run.script}: ${m.type === "failed" ? m.error : m.type}`));
      });
    });
    this.worker.on("message", (m: VuMessage) => {
      if ("declared" in m) for (const [name, type] of m.declared) this.types.set(name, type as MetricType);
      this.pending.shift()?.(m);
    });
  }

  call(c: VuCall): Promise<Extract<VuMessage, { type: "done" }>> {
    return new Promise((resolve) => {
      this.pending.push((m) => resolve(m.type === "done" ? m : { type: "done", error: m.type === "failed" ? m.error : "unexpected message", samples: [], declared: [] }));
      this.worker.postMessage(c);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

export async function runK6Script(run: K6RunOptions): Promise<K6RunResult> {
  const started = performance.now();
  const samples: Sample[] = [];
  const main = new Vu(run, 0);
  const vus: Vu[] = [main];
  try {
    const { options } = await main.ready;
    const setup = await main.call({ fn: "setup", data: undefined, iter: 0, iteration: false });
    samples.push(...setup.samples);
    if (setup.error !== undefined && !/exports no function setup/.test(setup.error)) throw new Error(`setup: ${setup.error}`);
    const data = setup.result;
    const scenarios = Object.entries(options.scenarios ?? { default: {} });
    const runs = await Promise.all(
      scenarios.map(async ([name, cfg], i) => {
        const vu = new Vu(run, i + 1);
        vus.push(vu);
        await vu.ready;
        const arrival = cfg.executor?.includes("arrival-rate") === true;
        const count = arrival ? (run.arrivals ?? 3) : (run.iterations ?? 1);
        const spacingMs = arrival ? durationMs(cfg.timeUnit ?? "1s", 1000) / (cfg.rate ?? 1) : 0;
        const result: ScenarioRun = { name, exec: cfg.exec ?? "default", iterations: 0, errors: [] };
        for (let iter = 0; iter < count; iter++) {
          const t0 = performance.now();
          const done = await vu.call({ fn: result.exec, data, iter, iteration: true });
          samples.push(...done.samples);
          result.iterations++;
          if (done.error !== undefined) result.errors.push(done.error);
          const wait = spacingMs - (performance.now() - t0);
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        return result;
      }),
    );
    const teardown = await main.call({ fn: "teardown", data, iter: 0, iteration: false });
    samples.push(...teardown.samples);
    if (teardown.error !== undefined && !/exports no function teardown/.test(teardown.error)) throw new Error(`teardown: ${teardown.error}`);
    const types = new Map<string, MetricType>(Object.entries(BUILTIN_METRICS));
    for (const vu of vus) for (const [k, v] of vu.types) types.set(k, v);
    const checks = samples.filter((s) => s.metric === "checks");
    return {
      scenarios: runs,
      samples,
      thresholds: evaluateThresholds(options.thresholds ?? {}, samples, types, (performance.now() - started) / 1000),
      checks: {
        passed: checks.filter((c) => c.value === 1).length,
        failed: checks.filter((c) => c.value !== 1).length,
        failedNames: [...new Set(checks.filter((c) => c.value !== 1).map((c) => c.tags.check))],
      },
    };
  } finally {
    await Promise.all(vus.map((v) => v.stop()));
  }
}
