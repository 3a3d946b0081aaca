/**
 * Admission benchmark (`npm run bench -- admission`), figures side by side from one run:
 * - creates/s (16 clients) with admission disabled (every default-on plugin
 *   disabled) and with the default chain (built-in plugins and both webhook plugins,
 *   no webhook configured), two replicas measured in interleaved rounds, with the
 *   process's CPU per create and its event loop utilization (below 1: the loop sat
 *   idle, waiting; a rate that falls further than CPU per create rises shows waits);
 * - sequential create latency (p50, p95) with one mutating and one validating webhook
 *   on a loopback HTTPS server in a child process (admission-webhooks.ts), against
 *   creates their object selector skips, on the same server in interleaved rounds.
 * - creates/s (16 clients) in a namespace that 10 ValidatingAdmissionPolicies
 *   (each of EXPRESSIONS_PER_POLICY passing expressions, bound by a namespaceSelector)
 *   match, against a namespace they do not match, on the same server in interleaved
 *   rounds (issue 18's proof: ≥ 0.8×).
 * Tables give min/median/max of the per-round ratios; in the throughput comparisons each
 * side goes first in every other round.
 * BENCH_ROUNDS=<n> (default 3) sets the rounds of each comparison; BENCH_ONLY=chain,policies,webhooks
 * (any of them, comma-separated) runs only those comparisons. BENCH_CPU_PROF=<dir>: the policed rounds are profiled
 * (V8's sampler in this process, which holds servers and clients) into <dir>, and
 * where their CPU time went is printed; after the webhook rounds, a batch of hooked
 * and a batch of skipping creates are profiled (the webhook process too), see
 * profileWebhookCalls; after the chain rounds, creates through the chain and without
 * admission are profiled, see profileChain. The webhook comparison also prints the TLS handshakes the
 * webhook process accepted during its rounds (0 when every call reused a connection).
 */
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { DEFAULT_ON_PLUGINS } from "../../services/apiserver/admission/order.ts";
import { BUILTIN_PLUGIN_FACTORIES, registerBuiltinPlugins } from "../../services/apiserver/admission/plugins/index.ts";
import type { WebhookChildReply, WebhookChildRequest } from "./admission-webhooks.ts";
import { ChildChannel } from "./child-channel.ts";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { diffRows, renderSummary, summarizeProfile } from "./cpu-profile-summary.ts";
import { MIN_ROUNDS, RatioTable, alternate, cpuProfiled, machineLoad, median, type CpuProfile } from "./harness.ts";

const OWN = ["NamespaceLifecycle", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "ValidatingAdmissionPolicy"];
const POLICIES = 10;
/** Creates of each profiled batch of the webhook comparison (BENCH_CPU_PROF). */
const PROFILED_CREATES = 1000;
/** Interleaved rounds of each comparison (BENCH_ROUNDS, at least 3): more rounds steady the medians on a loaded machine. */
const ROUNDS = Math.max(MIN_ROUNDS, Number(process.env.BENCH_ROUNDS ?? MIN_ROUNDS));
const EXPRESSIONS_PER_POLICY = 5;
const ONLY = new Set((process.env.BENCH_ONLY ?? "").split(",").filter((x) => x !== ""));
const runs = (part: "chain" | "policies" | "webhooks"): boolean => ONLY.size === 0 || ONLY.has(part);

/** Passing checks of a ConfigMap, of the kinds policies usually make. */
const EXPRESSIONS = [
  "object.metadata.name.size() < 253",
  "!has(object.metadata.labels) || object.metadata.labels.all(k, k.size() <= 63)",
  "object.data.all(k, object.data[k].size() < 1024)",
  "request.operation == 'CREATE' || request.operation == 'UPDATE'",
  "object.metadata.name.matches('^[a-z0-9][-a-z0-9]*$')",
];

/** 10 policies on ConfigMap creates, bound to namespaces labelled policed=yes; waits until they act. */
async function installPolicies(api: TestApiserver): Promise<void> {
  const ar = api.profile.group("admissionregistration");
  const ns = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "policed", labels: { policed: "yes" } } });
  if (ns.status !== 201) throw new Error(ns.text);
  const probe = { expression: "!has(object.metadata.labels) || !('probe' in object.metadata.labels)", message: "probe" };
  for (let p = 0; p < POLICIES; p++) {
    const validations = Array.from({ length: EXPRESSIONS_PER_POLICY }, (_, i) => ({ expression: EXPRESSIONS[i % EXPRESSIONS.length] }));
    const policy = await api.admin.post(`/apis/${ar}/v1/validatingadmissionpolicies`, {
      apiVersion: `${ar}/v1`,
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: `bench-${p}.example.com` },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] }, validations: p === POLICIES - 1 ? [...validations, probe] : validations },
    });
    if (policy.status !== 201) throw new Error(policy.text);
    const binding = await api.admin.post(`/apis/${ar}/v1/validatingadmissionpolicybindings`, {
      apiVersion: `${ar}/v1`,
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: `bench-${p}` },
      spec: { policyName: `bench-${p}.example.com`, validationActions: ["Deny"], matchResources: { namespaceSelector: { matchLabels: { policed: "yes" } } } },
    });
    if (binding.status !== 201) throw new Error(binding.text);
  }
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await api.admin.post("/api/v1/namespaces/policed/configmaps?dryRun=All", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "probe", labels: { probe: "yes" } } });
    if (r.status === 422) return;
    if (Date.now() > deadline) throw new Error(`policies not effective: ${r.status} ${r.text}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function rate(api: TestApiserver, prefix: string, durationMs: number, concurrency: number, namespace = "default"): Promise<number> {
  return (await rateAndCpu(api, prefix, durationMs, concurrency, namespace)).rate;
}

/**
 * Creates/s, the process's CPU milliseconds per create (server and clients share the
 * process) and the event loop's utilization over the round (1: never idle; below 1 the
 * loop waited with nothing to run, e.g. for timers or the thread pool).
 */
async function rateAndCpu(api: TestApiserver, prefix: string, durationMs: number, concurrency: number, namespace = "default"): Promise<{ rate: number; cpuMs: number; loop: number }> {
  const cpu = process.cpuUsage();
  const elu = performance.eventLoopUtilization();
  let done = 0;
  let n = 0;
  const end = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const i = n++;
        const r = await api.admin.post(`/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${prefix}-${i}` }, data: { i: String(i) } });
        if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const loop = performance.eventLoopUtilization(elu).utilization;
  return { rate: done / (durationMs / 1000), cpuMs: (used.user + used.system) / 1000 / Math.max(1, done), loop };
}

/** Sequential creates; `hooked`: labelled so that the webhooks' object selector matches. CPU: this process's (server and client) per create. */
async function latencies(api: TestApiserver, prefix: string, count: number, hooked: boolean): Promise<{ p50: number; p95: number; cpuMs: number }> {
  const ms: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    const labels = { bench: hooked ? "yes" : "no" };
    const r = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${prefix}-${i}`, labels }, data: { i: String(i) } });
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  }
  const used = process.cpuUsage(cpu);
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length * 0.5)], p95: ms[Math.floor(ms.length * 0.95)], cpuMs: (used.user + used.system) / 1000 / count };
}

/** `fn` under this process's CPU profiler when BENCH_CPU_PROF names a directory; the summary is printed. */
async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return fn();
  const file = join(dir, `admission-${name}.cpuprofile`);
  const { result, profile } = await cpuProfiled(file, fn);
  process.stdout.write(renderSummary(`${file} (${machineLoad()})`, summarizeProfile(profile, 25)));
  return result;
}

/**
 * BENCH_CPU_PROF=<dir>, after the measured rounds (a profiler running slows what it
 * measures): PROFILED_CREATES creates through the webhooks with both processes profiled,
 * then as many that skip them with this process profiled; printed: where this
 * process's CPU per create went up (self time, hooked minus skipped), and where the
 * webhook process's CPU went.
 */
async function profileWebhookCalls(api: TestApiserver, child: ChildChannel<WebhookChildRequest, WebhookChildReply>): Promise<void> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  const childFile = join(dir, "admission-webhook-server.cpuprofile");
  await child.ask({ type: "profile" }, "profiling");
  const hooked = await cpuProfiled(join(dir, "admission-webhooks-hooked.cpuprofile"), () => latencies(api, "ph", PROFILED_CREATES, true));
  await child.ask({ type: "profile-stop", file: childFile }, "profiled");
  const skipped = await cpuProfiled(join(dir, "admission-webhooks-skipped.cpuprofile"), () => latencies(api, "ps", PROFILED_CREATES, false));
  const a = summarizeProfile(skipped.profile, 100_000);
  const b = summarizeProfile(hooked.profile, 100_000);
  const busy = (x: typeof a) => (x.totalMs * (1 - x.idleShare)) / PROFILED_CREATES;
  process.stdout.write(
    `server + client process, ${PROFILED_CREATES} creates each way (${machineLoad()}): busy ${busy(a).toFixed(3)} ms per skipping create, ${busy(b).toFixed(3)} ms per hooked create; self time, hooked minus skipped, by file:\n${diffRows(a.files, b.files, 20)}by function:\n${diffRows(a.functions, b.functions, 30)}`,
  );
  process.stdout.write(renderSummary(`${childFile} (${PROFILED_CREATES} hooked creates)`, summarizeProfile(JSON.parse(await readFile(childFile, "utf8")) as CpuProfile, 25)));
}

/**
 * BENCH_CPU_PROF=<dir>, after the chain's measured rounds: PROFILED_CREATES creates
 * (16 clients) through the default chain, then as many with admission disabled, this
 * process profiled; printed: CPU per create each way and where the chain's went (self
 * time, chain minus disabled).
 */
async function profileChain(on: TestApiserver, off: TestApiserver): Promise<void> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return;
  const creates = async (api: TestApiserver, prefix: string) => {
    let n = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = n++; i < PROFILED_CREATES; i = n++) {
          const r = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${prefix}-${i}` }, data: { i: String(i) } });
          if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
        }
      }),
    );
  };
  const chain = await cpuProfiled(join(dir, "admission-chain-on.cpuprofile"), () => creates(on, "pc"));
  const none = await cpuProfiled(join(dir, "admission-chain-off.cpuprofile"), () => creates(off, "pc"));
  const a = summarizeProfile(none.profile, 100_000);
  const b = summarizeProfile(chain.profile, 100_000);
  const busy = (x: typeof a) => (x.totalMs * (1 - x.idleShare)) / PROFILED_CREATES;
  process.stdout.write(
    `server + client process, ${PROFILED_CREATES} creates each way (${machineLoad()}): busy ${busy(a).toFixed(3)} ms per create without admission, ${busy(b).toFixed(3)} ms with the default chain; self time, chain minus disabled, by file:\n${diffRows(a.files, b.files, 20)}by function:\n${diffRows(a.functions, b.functions, 30)}`,
  );
}

/** Creates/s with the default chain against admission disabled, two replicas. */
async function chainBench(on: TestApiserver, table: RatioTable): Promise<void> {
  const registered = new Set([...OWN, ...BUILTIN_PLUGIN_FACTORIES.map(([n]) => n)]);
  const disableAll = [...DEFAULT_ON_PLUGINS].filter((n) => registered.has(n));
  const off = await startTestApiserver({ bookmarkIntervalMs: 60_000, registerAdmissionPlugins: registerBuiltinPlugins, admission: { enable: [], disable: disableAll } });
  try {
    // Warm-up, then alternating rounds.
    await rate(off, "w", 1000, 16);
    await rate(on, "w", 1000, 16);
    const rounds = await alternate(
      ROUNDS,
      (round) => rateAndCpu(on, `r${round}`, 3000, 16),
      (round) => rateAndCpu(off, `r${round}`, 3000, 16),
    );
    await profileChain(on, off);
    const pick = <K extends "rate" | "cpuMs" | "loop">(k: K) => ({ a: rounds.a.map((x) => x[k]), b: rounds.b.map((x) => x[k]) });
    table.add({ key: "create_chain_vs_disabled", label: "creates/s, 16 clients", aName: "default chain", bName: "admission disabled", ...pick("rate"), unit: "req/s", better: "higher" });
    table.add({ key: "create_cpu_chain_vs_disabled", label: "CPU per create (server + clients)", aName: "default chain", bName: "admission disabled", ...pick("cpuMs"), unit: "ms", better: "lower" });
    // Below 1 the loop sat idle: a round whose rate falls further than its CPU per create rises waited for something.
    table.add({ key: "create_loop_chain_vs_disabled", label: "event loop utilization", aName: "default chain", bName: "admission disabled", ...pick("loop"), unit: "share", better: "higher" });
  } finally {
    await off.close();
  }
}

/** Creates/s and CPU per create in a namespace 10 policies match, against one they do not. */
async function policyBench(on: TestApiserver, table: RatioTable): Promise<void> {
  await installPolicies(on);
  await rate(on, "pw", 1000, 16, "policed");
  const policed = await profiled("policies", () =>
    alternate(
      ROUNDS,
      (round) => rateAndCpu(on, `p${round}`, 3000, 16, "policed"),
      (round) => rateAndCpu(on, `u${round}`, 3000, 16),
    ),
  );
  const policies = `${POLICIES} policies x ${EXPRESSIONS_PER_POLICY} expressions`;
  table.add({ key: "create_policies_vs_none", label: "creates/s, 16 clients", aName: policies, bName: "no policy matching", a: policed.a.map((x) => x.rate), b: policed.b.map((x) => x.rate), unit: "req/s", better: "higher" });
  // CPU per create is steadier than throughput on a loaded machine.
  table.add({ key: "create_cpu_policies_vs_none", label: "CPU per create (server + clients)", aName: policies, bName: "no policy matching", a: policed.a.map((x) => x.cpuMs), b: policed.b.map((x) => x.cpuMs), unit: "ms", better: "lower" });
}

/** `apiserver_admission_webhook_admission_duration_seconds_sum|count{…name="x"…} value`. */
const WEBHOOK_SECONDS_LINE = /^apiserver_admission_webhook_admission_duration_seconds_(sum|count)\{[^}]*name="([^"]+)"[^}]*\} (\S+)$/;

/** Per webhook name: the sum (ms) and count of the server's webhook call durations, from /metrics. */
async function webhookCallTotals(api: TestApiserver): Promise<Map<string, { ms: number; count: number }>> {
  const out = new Map<string, { ms: number; count: number }>();
  for (const line of (await api.admin.get("/metrics")).text.split("\n")) {
    const m = WEBHOOK_SECONDS_LINE.exec(line);
    if (!m) continue;
    const t = out.get(m[2]) ?? { ms: 0, count: 0 };
    if (m[1] === "sum") t.ms += Number(m[3]) * 1000;
    else t.count += Number(m[3]);
    out.set(m[2], t);
  }
  return out;
}

/** Sequential create latency through one mutating and one validating webhook (in a child process), against creates they skip. */
async function webhookBench(on: TestApiserver, table: RatioTable, out: Record<string, number>): Promise<void> {
  const webhooks = new ChildChannel<WebhookChildRequest, WebhookChildReply>(new URL("./admission-webhooks.ts", import.meta.url));
  try {
    await latencies(on, "lw", 200, false);
    const wh = await webhooks.ask({ type: "start" }, "ready");
    const ar = on.profile.group("admissionregistration");
    const hookOf = (path: string) => ({
      name: `${path}.bench.example.com`,
      clientConfig: { url: `${wh.url}/${path}`, caBundle: wh.caBundle },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      objectSelector: { matchLabels: { bench: "yes" } },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    });
    for (const [kind, plural, path] of [["Mutating", "mutatingwebhookconfigurations", "mutate"], ["Validating", "validatingwebhookconfigurations", "validate"]] as const) {
      const r = await on.admin.post(`/apis/${ar}/v1/${plural}`, { apiVersion: `${ar}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name: path }, webhooks: [hookOf(path)] });
      if (r.status !== 201) throw new Error(r.text);
    }
    await new Promise((r) => setTimeout(r, 500));
    await latencies(on, "hw", 100, true);
    const callsBefore = await webhookCallTotals(on);
    const childBefore = await webhooks.ask({ type: "count" }, "counted");
    // Alternating on one server: labelled objects go through both webhooks, others are skipped by the object selector.
    const lat = await alternate(
      ROUNDS,
      (round) => latencies(on, `hp${round}`, 300, true),
      (round) => latencies(on, `lp${round}`, 300, false),
    );
    const callsAfter = await webhookCallTotals(on);
    // How much of the added time is the webhook calls themselves (request out → answer parsed), as the server measures them.
    for (const [name, after] of callsAfter) {
      const before = callsBefore.get(name) ?? { ms: 0, count: 0 };
      const count = after.count - before.count;
      if (count > 0) process.stdout.write(`webhook ${name}: ${count} calls, mean call ${((after.ms - before.ms) / count).toFixed(2)} ms (${machineLoad()})\n`);
    }
    const childAfter = await webhooks.ask({ type: "count" }, "counted");
    const called = childAfter.byPath;
    const childCalls = called["/mutate"] - (childBefore.byPath["/mutate"] ?? 0);
    out.webhook_child_cpu_ms_per_create = (childAfter.cpuMs - childBefore.cpuMs) / Math.max(1, childCalls);
    // Every call of the measured rounds reuses a kept-alive connection: no TLS handshake while they ran.
    out.webhook_tls_handshakes_in_rounds = childAfter.handshakes - childBefore.handshakes;
    process.stdout.write(`webhook process CPU per labelled create (both webhooks): ${out.webhook_child_cpu_ms_per_create.toFixed(3)} ms; TLS handshakes during the rounds: ${out.webhook_tls_handshakes_in_rounds} (${childAfter.handshakes} in all)\n`);
    const labelled = 100 + ROUNDS * 300;
    if (!(called["/mutate"] >= labelled && called["/validate"] >= labelled)) throw new Error(`the webhooks were not called for every labelled create: ${JSON.stringify(called)}`);
    await profileWebhookCalls(on, webhooks);
    table.add({ key: "create_p50_webhooks", label: "sequential create p50", aName: "two webhooks", bName: "no webhook", a: lat.a.map((x) => x.p50), b: lat.b.map((x) => x.p50), unit: "ms", better: "lower" });
    table.add({ key: "create_p95_webhooks", label: "sequential create p95", aName: "two webhooks", bName: "no webhook", a: lat.a.map((x) => x.p95), b: lat.b.map((x) => x.p95), unit: "ms", better: "lower" });
    // CPU holds up under load where latency does not: what the calls cost the server's process.
    table.add({ key: "create_cpu_webhooks", label: "CPU per sequential create (server + client process)", aName: "two webhooks", bName: "no webhook", a: lat.a.map((x) => x.cpuMs), b: lat.b.map((x) => x.cpuMs), unit: "ms", better: "lower" });
    // The goal is on the latency the webhooks add: p50 with them minus p50 without, per round.
    const added = lat.a.map((x, i) => x.p50 - lat.b[i].p50);
    out.create_p50_webhooks_added_ms = median(added);
    process.stdout.write(`webhook p50 added per round (ms): ${added.map((x) => x.toFixed(2)).join(" ")}; min ${Math.min(...added).toFixed(2)} median ${median(added).toFixed(2)} max ${Math.max(...added).toFixed(2)}\n`);
  } finally {
    webhooks.kill();
  }
}

export async function benchAdmission(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const on = await startTestApiserver({ bookmarkIntervalMs: 60_000, registerAdmissionPlugins: registerBuiltinPlugins });
  try {
    const table = new RatioTable("admission");
    if (runs("chain")) await chainBench(on, table);
    if (runs("policies")) await policyBench(on, table);
    if (runs("webhooks")) await webhookBench(on, table, out);
    process.stdout.write(table.render());
    Object.assign(out, table.figures());
  } finally {
    await on.close();
  }
  return out;
}
