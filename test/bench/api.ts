/**
 * API benchmark (`npm run bench -- api`), all figures from one run on this machine
 * (compare the ratios, not the absolute numbers):
 * - GET of one object against a bare @hono/node-server route returning the same JSON
 *   over the same TLS (the ceiling), with the clients in this process and again in a
 *   child process (get-clients.ts);
 * - creates/s with 16 clients; a list of 10,000 small objects, whole and in chunks of 500;
 * - event delivery delay to 1,000 watchers at ~100 writes/s, the watchers in a child
 *   process (watch-clients.ts) so the delay is the server's, not the clients' backlog.
 */
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { startTestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { WatchClientsProcess } from "./watch-process.ts";
import { benchCustomResources } from "./api-crd.ts";
import { ChildChannel } from "./child-channel.ts";
import type { LoadReply, LoadRequest } from "./get-clients.ts";

async function measure(label: string, durationMs: number, concurrency: number, op: () => Promise<void>): Promise<number> {
  let done = 0;
  const end = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await op();
        done++;
      }
    }),
  );
  const rate = done / (durationMs / 1000);
  process.stdout.write(`${label}: ${rate.toFixed(0)} req/s\n`);
  return rate;
}

export async function benchApi(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const api = await startTestApiserver({ bookmarkIntervalMs: 60_000 });
  try {
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bench" }, data: { payload: "x".repeat(700) } };
    const created = await api.admin.post("/api/v1/namespaces/default/configmaps", cm);
    const body = created.text;

    // Ceiling: bare hono route with the same TLS and the same JSON.
    const pki = await ensurePki(api.dir);
    const bare = new Hono();
    bare.get("/obj", () => new Response(body, { headers: { "content-type": "application/json" } }));
    const server = serve({ fetch: bare.fetch, createServer: createHttpsServer, serverOptions: { key: pki.serving.keyPem, cert: pki.serving.certPem }, hostname: "127.0.0.1", port: 0 });
    await new Promise((r) => setTimeout(r, 100));
    const barePort = (server.address() as AddressInfo).port;
    const bareClient = new HttpsClient(`https://127.0.0.1:${barePort}`, { ca: pki.ca.certPem });

    out.get_ceiling_rps = await measure("GET bare hono ceiling", 4000, 32, async () => void (await bareClient.get("/obj")));
    out.get_rps = await measure("GET one object (apiserver)", 4000, 32, async () => void (await api.admin.get("/api/v1/namespaces/default/configmaps/bench")));
    out.get_ratio = out.get_rps / out.get_ceiling_rps;
    process.stdout.write(`GET ratio apiserver/ceiling: ${out.get_ratio.toFixed(2)}\n`);
    // The same pair with the clients in a child process (get-clients.ts), alternating
    // 2-second rounds so that both sides see the same machine load: the server's cost alone.
    const load = new ChildChannel<LoadRequest, LoadReply>(new URL("./get-clients.ts", import.meta.url));
    try {
      const ours = { url: api.replica.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
      const ceiling = { url: `https://127.0.0.1:${barePort}`, ca: pki.ca.certPem };
      const totals = { bare: 0, ours: 0, failures: 0 };
      const rounds = 3;
      const roundMs = 2000;
      for (let r = 0; r < rounds; r++) {
        const b = await load.ask({ type: "load", target: ceiling, path: "/obj", durationMs: roundMs, concurrency: 32 }, "loaded");
        const o = await load.ask({ type: "load", target: ours, path: "/api/v1/namespaces/default/configmaps/bench", durationMs: roundMs, concurrency: 32 }, "loaded");
        totals.bare += b.requests;
        totals.ours += o.requests;
        totals.failures += b.failures + o.failures;
      }
      out.get_split_ceiling_rps = totals.bare / ((rounds * roundMs) / 1000);
      out.get_split_rps = totals.ours / ((rounds * roundMs) / 1000);
      out.get_split_ratio = out.get_split_rps / out.get_split_ceiling_rps;
      process.stdout.write(
        `GET, clients in a child process: bare ${out.get_split_ceiling_rps.toFixed(0)} req/s, apiserver ${out.get_split_rps.toFixed(0)} req/s, ratio ${out.get_split_ratio.toFixed(2)}${totals.failures ? ` (${totals.failures} failed)` : ""}\n`,
      );
    } finally {
      load.kill();
    }
    bareClient.close();
    server.close();

    let n = 0;
    out.create_rps = await measure("create (POST) configmaps", 4000, 16, async () => {
      const i = n++;
      await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c-${i}` }, data: { i: String(i) } });
    });

    await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "big" } });
    const fill = Array.from({ length: 10_000 }, (_, i) => i);
    for (let i = 0; i < fill.length; i += 64) {
      await Promise.all(fill.slice(i, i + 64).map((j) => api.admin.post("/api/v1/namespaces/big/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `o-${j}` }, data: { j: String(j) } })));
    }
    let t = Date.now();
    const whole = await api.admin.get("/api/v1/namespaces/big/configmaps");
    out.list_10k_whole_ms = Date.now() - t;
    t = Date.now();
    let token: string | undefined;
    let items = 0;
    do {
      const res = await api.admin.get(`/api/v1/namespaces/big/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ""}`);
      const page = res.json<{ items: unknown[]; metadata: { continue?: string } }>();
      items += page.items.length;
      token = page.metadata.continue;
    } while (token);
    out.list_10k_chunked_500_ms = Date.now() - t;
    process.stdout.write(`list 10k whole: ${out.list_10k_whole_ms} ms (${whole.body.length} bytes); in chunks of 500: ${out.list_10k_chunked_500_ms} ms (${items} items)\n`);

    // 1,000 watchers in a child process, ~100 writes/s: delay from a write being sent to its event arriving.
    const watchPki = await ensurePki(api.dir);
    const start = (await api.admin.get("/api/v1/namespaces/default/configmaps?limit=1")).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const clients = new WatchClientsProcess();
    try {
      const watchers = 1000;
      const target = { url: api.replica.url, ca: watchPki.ca.certPem, cert: watchPki.admin.certPem, key: watchPki.admin.keyPem };
      const connected = await clients.open(target, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${start}&labelSelector=bench%3Dwatch`, watchers);
      if (connected !== watchers) throw new Error(`only ${connected}/${watchers} watches opened`);
      const writes = 200;
      const sentAt = new Map<string, number>();
      for (let i = 0; i < writes; i++) {
        const name = `w-${i}`;
        sentAt.set(name, Date.now());
        await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { bench: "watch" } } });
        await new Promise((r) => setTimeout(r, 10));
      }
      const d = await clients.collect(sentAt, writes, 60_000);
      out.watch_events_delivered = d.delivered;
      out.watch_events_expected = writes * watchers;
      out.watch_latency_p50_ms = d.p50;
      out.watch_latency_p95_ms = d.p95;
      out.watch_latency_p99_ms = d.p99;
      out.watch_latency_max_ms = d.max;
      process.stdout.write(
        `${watchers} watchers (separate process) × ${writes} writes at ~100/s: ${d.delivered}/${writes * watchers} events (${d.unexpected} unexpected, ${d.broken} broken streams); latency p50 ${d.p50} ms, p95 ${d.p95} ms, p99 ${d.p99} ms, max ${d.max} ms\n`,
      );
    } finally {
      clients.kill();
    }
  } finally {
    await api.close();
  }
  // Custom resources vs ConfigMaps, and CRD create → first custom resource across two replicas.
  Object.assign(out, await benchCustomResources());
  return out;
}
