/**
 * A load run: ensures the namespace exists, runs `concurrency` virtual users that loop
 * over the scenario schedule (each starting at a different offset) until the duration
 * is over, then optionally deletes the run's objects. Resolves to the run's summary.
 * With `watchers`, that many watches of the run's objects measure delivery latency
 * meanwhile (watchers.ts).
 */
import { randomBytes } from "node:crypto";
import { LoadClient } from "./client.ts";
import type { Connection } from "./connection.ts";
import { RUN_LABEL, RUNNERS, type ScenarioName } from "./scenarios.ts";
import { deliverySummary, Recorder, type Summary } from "./stats.ts";
import { DeliveryWatchers } from "./watchers.ts";

export interface RunOptions {
  connection: Connection;
  namespace: string;
  concurrency: number;
  durationMs: number;
  schedule: ScenarioName[];
  pageSize: number;
  watchTimeoutSeconds: number;
  cleanup: boolean;
  /** Run id label value; random when not given. */
  runId?: string;
  /** Long-running watches measuring delivery latency (0: none). */
  watchers?: number;
}

export interface RunResult {
  runId: string;
  summary: Summary;
}

async function ensureNamespace(client: LoadClient, ns: string): Promise<void> {
  const r = await client.send("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`creating namespace ${ns}: ${r.status} ${r.error ?? r.text.slice(0, 300)}`);
}

export async function runLoad(o: RunOptions): Promise<RunResult> {
  const runId = o.runId ?? randomBytes(4).toString("hex");
  const client = new LoadClient(o.connection, o.concurrency + 2);
  try {
    await ensureNamespace(client, o.namespace);
    const rec = new Recorder();
    const started = performance.now();
    const deadline = Date.now() + o.durationMs;
    const user = async (vu: number) => {
      for (let iteration = 0; Date.now() < deadline; iteration++) {
        const scenario = o.schedule[(vu + iteration) % o.schedule.length];
        await RUNNERS[scenario]({ client, rec, namespace: o.namespace, runId, vu, iteration, pageSize: o.pageSize, watchTimeoutSeconds: o.watchTimeoutSeconds });
      }
    };
    const watchers = new DeliveryWatchers(o.connection, o.namespace, runId);
    watchers.start(o.watchers ?? 0);
    await Promise.all(Array.from({ length: o.concurrency }, (_, vu) => user(vu)));
    const summary = rec.summary((performance.now() - started) / 1000);
    if ((o.watchers ?? 0) > 0) {
      // The last writes' events are still on their way.
      await new Promise((r) => setTimeout(r, 1000));
      summary.watchDelivery = deliverySummary(o.watchers ?? 0, watchers.latencies, watchers.failures);
    }
    await watchers.stop();
    if (o.cleanup) {
      const r = await client.send("DELETE", `/api/v1/namespaces/${encodeURIComponent(o.namespace)}/configmaps?labelSelector=${encodeURIComponent(`${RUN_LABEL}=${runId}`)}`);
      if (r.status !== 200) process.stderr.write(`cleanup of run ${runId} failed: ${r.status} ${r.error ?? r.text.slice(0, 200)}\n`);
    }
    return { runId, summary };
  } finally {
    client.close();
  }
}
