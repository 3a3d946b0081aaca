/**
 * The load generator of the API benchmark, in its own process (so the server's event
 * loop never runs the clients). Two modes over one keep-alive HTTPS agent a target:
 * - closed loop: `concurrency` clients, each sending its next request when the
 *   previous answer is read, for `durationMs` or until `count` requests are answered;
 *   reports requests/s and latency percentiles;
 * - open loop: `count` requests at a fixed offered rate (request i is sent at
 *   t0 + i/rate whatever the answers, late timers catching up at once); reports when
 *   each was sent (by object name) and the achieved send and completion rates.
 * Templates: `{n}` in a path or body is a counter unique in this process, `{m}` is
 * `n % modulo`, `{name}` the open loop's object name (`namePrefix` + n).
 *
 * Protocol over IPC:
 *   parent → {type:"closed", target, call, durationMs, concurrency, count?}   child → {type:"closedDone", ...ClosedResult}
 *   parent → {type:"open", target, call, ratePerSec, count, namePrefix}       child → {type:"openDone", ...OpenResult}
 */
import { Agent, request } from "node:https";
import { performance } from "node:perf_hooks";

export interface LoadTarget {
  url: string;
  ca: string;
  cert?: string;
  key?: string;
}

export interface CallTemplate {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** Status that counts as success (default 200). */
  expect?: number;
  /** `{m}` = n % modulo (default 1). */
  modulo?: number;
}

export interface ClosedResult {
  requests: number;
  failures: number;
  rps: number;
  p50: number;
  p99: number;
  /** First failure's status and body start, for the report. */
  firstFailure?: string;
}

export interface OpenResult {
  sentAt: Record<string, number>;
  failures: number;
  offeredRate: number;
  /** Sends per second actually achieved (count over the time from the first to the last send). */
  sentRate: number;
  /** Answers per second over the time from the first send to the last answer. */
  completedRate: number;
  firstFailure?: string;
}

export type LoadRequest =
  | { type: "closed"; target: LoadTarget; call: CallTemplate; durationMs: number; concurrency: number; count?: number }
  | { type: "open"; target: LoadTarget; call: CallTemplate; ratePerSec: number; count: number; namePrefix: string };
export type LoadReply = ({ type: "closedDone" } & ClosedResult) | ({ type: "openDone" } & OpenResult);

let counter = 0;
const agents = new Map<string, Agent>();

function agentFor(t: LoadTarget): Agent {
  let a = agents.get(t.url);
  if (!a) {
    a = new Agent({ ca: t.ca, cert: t.cert, key: t.key, keepAlive: true, maxSockets: Infinity });
    agents.set(t.url, a);
  }
  return a;
}

function fill(template: string, n: number, modulo: number, name: string): string {
  return template.replaceAll("{n}", String(n)).replaceAll("{m}", String(n % modulo)).replaceAll("{name}", name);
}

/** Sends one call; resolves with its status and the start of a failing body. */
function send(agent: Agent, base: string, call: CallTemplate, n: number, name: string): Promise<{ ok: boolean; detail?: string }> {
  const modulo = call.modulo ?? 1;
  const body = call.body === undefined ? undefined : fill(call.body, n, modulo, name);
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...call.headers };
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const req = request(new URL(fill(call.path, n, modulo, name), base), { method: call.method, agent, headers }, (res) => {
      const ok = res.statusCode === (call.expect ?? 200);
      let detail = "";
      res.on("data", (c: Buffer) => {
        if (!ok && detail.length < 300) detail += c.toString();
      });
      res.on("end", () => resolve(ok ? { ok } : { ok, detail: `${res.statusCode}: ${detail.slice(0, 300)}` }));
      res.on("error", (err) => resolve({ ok: false, detail: err.message }));
    });
    req.on("error", (err) => resolve({ ok: false, detail: err.message }));
    req.end(body);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function closed(m: Extract<LoadRequest, { type: "closed" }>): Promise<ClosedResult> {
  const agent = agentFor(m.target);
  const latencies: number[] = [];
  let failures = 0;
  let issued = 0;
  let firstFailure: string | undefined;
  const start = performance.now();
  const end = start + m.durationMs;
  const limit = m.count ?? Infinity;
  await Promise.all(
    Array.from({ length: m.concurrency }, async () => {
      while (performance.now() < end && issued < limit) {
        issued++;
        const n = counter++;
        const t = performance.now();
        const r = await send(agent, m.target.url, m.call, n, String(n));
        if (r.ok) latencies.push(performance.now() - t);
        else {
          failures++;
          firstFailure ??= r.detail;
        }
      }
    }),
  );
  const elapsed = performance.now() - start;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, failures, rps: (latencies.length * 1000) / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), firstFailure };
}

async function open(m: Extract<LoadRequest, { type: "open" }>): Promise<OpenResult> {
  const agent = agentFor(m.target);
  const sentAt: Record<string, number> = {};
  const pending: Array<Promise<void>> = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let lastAnswer = 0;
  const intervalMs = 1000 / m.ratePerSec;
  const t0 = performance.now();
  let firstSend = 0;
  let lastSend = 0;
  for (let i = 0; i < m.count; i++) {
    const due = t0 + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const n = counter++;
    const name = `${m.namePrefix}${n}`;
    sentAt[name] = Date.now();
    lastSend = performance.now();
    if (i === 0) firstSend = lastSend;
    pending.push(
      send(agent, m.target.url, m.call, n, name).then((r) => {
        lastAnswer = performance.now();
        if (!r.ok) {
          failures++;
          firstFailure ??= r.detail;
        }
      }),
    );
  }
  await Promise.all(pending);
  const sendSpan = (lastSend - firstSend) / 1000;
  return {
    sentAt,
    failures,
    offeredRate: m.ratePerSec,
    sentRate: m.count > 1 && sendSpan > 0 ? (m.count - 1) / sendSpan : m.ratePerSec,
    completedRate: (m.count - failures) / Math.max(1e-3, (lastAnswer - firstSend) / 1000),
    firstFailure,
  };
}

if (process.send) {
  process.on("message", (m: LoadRequest) => {
    if (m.type === "closed") void closed(m).then((r) => process.send?.({ type: "closedDone", ...r }));
    else void open(m).then((r) => process.send?.({ type: "openDone", ...r }));
  });
  process.on("disconnect", () => process.exit(0));
}
