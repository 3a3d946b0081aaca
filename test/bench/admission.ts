/**
 * Admission benchmark (`npm run bench -- admission`), figures side by side from one run:
 * - creates/s (16 clients) with admission disabled (every default-on plugin
 *   disabled) and with the default chain (built-in plugins and both webhook plugins,
 *   no webhook configured), two replicas measured in alternating rounds;
 * - sequential create latency (p50, p95) on the default chain without webhooks and
 *   with one mutating and one validating webhook on a loopback HTTPS server.
 */
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { DEFAULT_ON_PLUGINS } from "../../services/apiserver/admission/order.ts";
import { BUILTIN_PLUGIN_FACTORIES, registerBuiltinPlugins } from "../../services/apiserver/admission/plugins/index.ts";
import { jsonPatch, startWebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";

const OWN = ["NamespaceLifecycle", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook"];

async function rate(api: TestApiserver, prefix: string, durationMs: number, concurrency: number): Promise<number> {
  let done = 0;
  let n = 0;
  const end = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const i = n++;
        const r = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${prefix}-${i}` }, data: { i: String(i) } });
        if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
        done++;
      }
    }),
  );
  return done / (durationMs / 1000);
}

async function latencies(api: TestApiserver, prefix: string, count: number): Promise<{ p50: number; p95: number }> {
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    const r = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${prefix}-${i}`, labels: { bench: "yes" } }, data: { i: String(i) } });
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length * 0.5)], p95: ms[Math.floor(ms.length * 0.95)] };
}

export async function benchAdmission(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const registered = new Set([...OWN, ...BUILTIN_PLUGIN_FACTORIES.map(([n]) => n)]);
  const disableAll = [...DEFAULT_ON_PLUGINS].filter((n) => registered.has(n));
  const off = await startTestApiserver({ bookmarkIntervalMs: 60_000, registerAdmissionPlugins: registerBuiltinPlugins, admission: { enable: [], disable: disableAll } });
  const on = await startTestApiserver({ bookmarkIntervalMs: 60_000, registerAdmissionPlugins: registerBuiltinPlugins });
  const wh = await startWebhookServer();
  try {
    // Warm-up, then alternating rounds.
    await rate(off, "w", 1000, 16);
    await rate(on, "w", 1000, 16);
    const offRates: number[] = [];
    const onRates: number[] = [];
    for (let round = 0; round < 3; round++) {
      offRates.push(await rate(off, `r${round}`, 3000, 16));
      onRates.push(await rate(on, `r${round}`, 3000, 16));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    out.create_rps_admission_disabled = Math.round(median(offRates));
    out.create_rps_default_chain_no_webhooks = Math.round(median(onRates));
    out.create_ratio_chain_vs_disabled = Number((out.create_rps_default_chain_no_webhooks / out.create_rps_admission_disabled).toFixed(3));
    process.stdout.write(`creates/s: disabled ${offRates.map((x) => x.toFixed(0)).join(", ")}; default chain ${onRates.map((x) => x.toFixed(0)).join(", ")}\n`);

    await latencies(on, "lw", 200);
    const plain = await latencies(on, "lp", 1000);
    const ar = on.profile.group("admissionregistration");
    const hookOf = (path: string) => ({
      name: `${path}.bench.example.com`,
      clientConfig: { url: `${wh.url}/${path}`, caBundle: wh.caBundle },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      objectSelector: { matchLabels: { bench: "yes" } },
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    });
    wh.on("/mutate", () => ({ response: { allowed: true, ...jsonPatch([{ op: "add", path: "/metadata/annotations", value: { mutated: "yes" } }]) } }));
    wh.on("/validate", () => ({ response: { allowed: true } }));
    for (const [kind, plural, path] of [["Mutating", "mutatingwebhookconfigurations", "mutate"], ["Validating", "validatingwebhookconfigurations", "validate"]] as const) {
      const r = await on.admin.post(`/apis/${ar}/v1/${plural}`, { apiVersion: `${ar}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name: path }, webhooks: [hookOf(path)] });
      if (r.status !== 201) throw new Error(r.text);
    }
    await new Promise((r) => setTimeout(r, 500));
    await latencies(on, "hw", 200);
    const hooked = await latencies(on, "hp", 1000);
    if (!wh.reviews.some((r) => r.path === "/validate")) throw new Error("the webhooks were not called");
    out.create_p50_ms_no_webhooks = Number(plain.p50.toFixed(2));
    out.create_p95_ms_no_webhooks = Number(plain.p95.toFixed(2));
    out.create_p50_ms_two_webhooks = Number(hooked.p50.toFixed(2));
    out.create_p95_ms_two_webhooks = Number(hooked.p95.toFixed(2));
    out.create_p50_added_ms = Number((hooked.p50 - plain.p50).toFixed(2));
  } finally {
    await wh.close();
    await on.close();
    await off.close();
  }
  return out;
}
