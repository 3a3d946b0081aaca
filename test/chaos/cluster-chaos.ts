/**
 * One cluster chaos run (`npm run chaos`, cluster-chaos.test.ts): starts the whole
 * topology (api-cluster.ts), runs the recording workload (creates, updates,
 * server-side applies, deletes, reads of a small set of ConfigMaps) and the
 * watchers through haproxy while the fault schedule runs (cluster-faults.ts),
 * then stops the load, lets the store settle, reads its whole history and
 * returns the figures of chaos-report.ts. Every process is stopped at the end,
 * whatever happened.
 */
import { writeFileSync } from "node:fs";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { checkLinearizable, describeResult } from "../support/linearizability/checker.ts";
import { kvModel } from "../support/linearizability/kv-model.ts";
import { HttpsClient } from "../support/https-client.ts";
import { seededRng } from "../support/seeded-rng.ts";
import { ApiCluster } from "./api-cluster.ts";
import { ApiRecordingClient, type ApiTarget, type FailureClass, type WriteLedger } from "./api-recorder.ts";
import type { ChaosFigures } from "./chaos-report.ts";
import { faultRound, injectClusterFault, type ClusterFaultTimings } from "./cluster-faults.ts";
import { lostWrites } from "./lost-writes.ts";
import { committedCounts, configMapForm, longestUnavailability, settleUncertainWrites } from "./outcomes.ts";
import { checkAcknowledgedWrites } from "./stream-check.ts";
import { checkWatcher, expectedEvents } from "./watch-check.ts";
import { WatchRecorder } from "./watch-recorder.ts";
import { Workload } from "./workload.ts";

export interface ChaosConfig {
  /** Faults keep coming until this much time has passed (one full round at least). */
  durationMs: number;
  seed: number;
  replicas: number;
  clients: number;
  keys: number;
  watchers: number;
  /** Client deadline of each operation. */
  timeoutMs: number;
  /** Quiet time before the first fault and after each. */
  settleMs: number;
  timings: ClusterFaultTimings;
  /** Search steps the linearizability checker may take per key before answering "unknown". */
  maxCheckSteps: number;
  /** Where to write the recorded history (JSON) for a later look; none when unset. */
  historyFile?: string;
}

export const CI_CHAOS: Omit<ChaosConfig, "seed"> = {
  durationMs: 0,
  replicas: 2,
  clients: 6,
  keys: 4,
  watchers: 2,
  timeoutMs: 10_000,
  settleMs: 800,
  timings: { downMs: 1000, pauseMs: 2000, partitionMs: 2500, peerDelayMs: 150, clockHoldMs: 2000, clockJumpMs: 10 * 60_000 },
  maxCheckSteps: 5_000_000,
};

export const LONG_CHAOS: Omit<ChaosConfig, "seed"> = {
  durationMs: 10 * 60_000,
  replicas: 3,
  clients: 12,
  keys: 6,
  watchers: 4,
  timeoutMs: 10_000,
  settleMs: 3000,
  timings: { downMs: 3000, pauseMs: 5000, partitionMs: 6000, peerDelayMs: 300, clockHoldMs: 5000, clockJumpMs: 10 * 60_000 },
  maxCheckSteps: 20_000_000,
};

const NAMESPACE = "chaos";

function countBy(labels: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of labels) out[l] = (out[l] ?? 0) + 1;
  return out;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runClusterChaos(config: ChaosConfig, progress: (line: string) => void = () => {}): Promise<ChaosFigures> {
  const started = performance.now();
  const faults: string[] = [];
  const spans: Array<{ from: number; label: string }> = [{ from: 0, label: "no fault" }];
  let current = "start-up";
  const log = (line: string) => {
    const entry = `${((performance.now() - started) / 1000).toFixed(1)}s ${line}`;
    faults.push(entry);
    progress(entry);
  };
  const cluster = await ApiCluster.start({ replicas: config.replicas, shutdownDelay: "2s" });
  const kv = new EtcdKv(cluster.store.endpoints, { callTimeoutMs: 10_000, retryBudgetMs: 30_000 });
  const ledger: WriteLedger = { uncertain: [], deleteTargets: new Map() };
  const target: ApiTarget = { ...cluster.adminIdentity, namespace: NAMESPACE };
  const workload = new Workload({
    clients: config.clients,
    keys: Array.from({ length: config.keys }, (_, i) => `k${i}`),
    endpoints: [cluster.loadBalancerUrl],
    seed: config.seed,
    timeoutMs: config.timeoutMs,
    casByValue: false,
    client: (id, history) => new ApiRecordingClient(id, history, target, config.timeoutMs, ledger, () => current),
  });
  const watchers = Array.from({ length: config.watchers }, (_, i) => new WatchRecorder(i, cluster.loadBalancerUrl, target, 5 + i * 3));
  try {
    log(`cluster up: ${config.replicas} replicas behind ${cluster.loadBalancerUrl}, store ${cluster.store.endpoints.join(", ")}, redis ${cluster.store.redis.url}`);
    const admin = new HttpsClient(cluster.loadBalancerUrl, cluster.adminIdentity);
    const ns = await admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } });
    admin.close();
    if (ns.status !== 201) throw new Error(`creating namespace ${NAMESPACE}: ${ns.status} ${ns.text}`);
    await Promise.all(watchers.map((w) => w.start()));
    const loadStart = performance.now();
    current = "no fault";
    workload.start();
    await sleep(config.settleMs);
    const rng = seededRng(config.seed);
    // The duration counts from the start of the load (the cluster's start-up is not part of it).
    const faultTime = () => performance.now() - loadStart;
    for (let round = 0; round === 0 || faultTime() < config.durationMs; round++) {
      for (const fault of faultRound(rng, round)) {
        if (round > 0 && faultTime() >= config.durationMs) break;
        current = fault;
        spans.push({ from: performance.now() - loadStart, label: fault });
        await injectClusterFault(cluster, fault, rng, config.timings, log);
        current = "no fault";
        spans.push({ from: performance.now() - loadStart, label: `after ${fault}` });
        await sleep(config.settleMs);
      }
    }
    await workload.stop();
    const loadEnd = performance.now();
    log("load stopped");
    await cluster.store.waitForQuiet();
    await workload.finalReads();
    const finalRevision = await cluster.store.revision();
    const history = await kv.history(0, finalRevision);
    const expected = expectedEvents(history, NAMESPACE);
    const lastOfNamespace = expected.at(-1)?.revision ?? 0;
    await Promise.all(watchers.map((w) => w.stopAt(lastOfNamespace, 30_000)));
    log(`final revision ${finalRevision}; namespace's last change at ${lastOfNamespace}`);

    const ops = workload.history.ops;
    if (config.historyFile !== undefined) writeFileSync(config.historyFile, JSON.stringify({ ops, uncertain: ledger.uncertain }));
    log(`checking ${ops.length} operations (${ops.filter((o) => o.returned === undefined).length} pending) for linearizability`);
    const result = checkLinearizable(kvModel, ops, { maxSteps: config.maxCheckSteps });
    log(`linearizability: ${String(result.ok)}`);
    const lost = [...checkAcknowledgedWrites(ops, history, configMapForm(NAMESPACE)), ...(result.ok === true ? lostWrites(ops, result.partitions) : [])];
    const deletedIds = new Set(ops.filter((o) => o.output?.kind === "delete" && o.output.deleted === 1).map((o) => o.id));
    const settled = settleUncertainWrites(ledger.uncertain, history, NAMESPACE, ledger.deleteTargets, deletedIds);
    const uncertain: Record<FailureClass, number> = { "5xx": 0, timeout: 0, connection: 0, unexpected: 0 };
    for (const u of ledger.uncertain) uncertain[u.failure]++;
    const gap = longestUnavailability(ops, loadStart, loadEnd);
    const during = [...spans].reverse().find((s) => s.from <= gap.at)?.label ?? "no fault";
    return {
      seed: config.seed,
      seconds: (performance.now() - started) / 1000,
      faults,
      operations: ops.length,
      acknowledgedWrites: ops.filter((o) => o.output !== undefined && o.input.kind !== "get").length,
      uncertain,
      committed: committedCounts(settled),
      acknowledgedWritesLost: lost.length,
      lostSamples: lost.slice(0, 5),
      linearizable: result.ok,
      linearizabilityDetail: result.ok === true ? "" : describeResult(kvModel, result),
      watchers: watchers.map((w) => checkWatcher(expected, w.startRevision, w.events, w.gaps)),
      longestUnavailability: gap,
      unavailabilityDuring: during,
      errors: Object.fromEntries(workload.history.errors),
      connectionLostDuring: countBy(settled.filter((x) => x.committed && x.failure === "connection").map((x) => x.during)),
      committedFailureFaults: [...new Set(settled.filter((s) => s.committed && (s.failure === "5xx" || s.failure === "timeout")).map((s) => `${s.during} (${s.failure} ${s.status}: ${s.message.slice(0, 120)})`))],
    };
  } catch (err) {
    progress(`chaos run failed; last output:\n${cluster.outputTail()}`);
    throw err;
  } finally {
    await workload.stop();
    workload.close();
    await Promise.all(watchers.map((w) => w.stopAt(0, 0)));
    await kv.close();
    await cluster.stop();
  }
}
