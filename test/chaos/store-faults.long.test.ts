/**
 * Fault tests of the store as real processes: a 3-node cluster of
 * services/store/main.ts publishing to a real redis-server, under concurrent
 * client load (put / get / cas / delete on a few keys, each operation to a random
 * endpoint), while faults are injected in turn: SIGKILL of the leader (restarted
 * with its data), SIGSTOP of a follower then SIGCONT, the same for the leader, a
 * node restart, a Redis restart. Afterwards:
 * - the recorded history (pending operations as such) is linearizable;
 * - no acknowledged write is lost (final reads; MVCC history at the acked revision);
 * - the revision stream holds each committed revision once, in order, without a
 *   gap up to the store's revision, matching the store's history (the part
 *   before a Redis restart is checked before the restart, the rest after it).
 *
 * A long test (`npm run test:long`): `npm test` runs the same store faults through the
 * whole stack in cluster-chaos.test.ts. Run alone without LONG=1 it takes the small
 * size; LONG=1 runs more clients and more fault rounds. CHAOS_SEED
 * replays a seed's choices (timing still varies). The seed and the fault schedule
 * are printed when a check fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import type { RevisionChange } from "../../services/apiserver/storage/kv.ts";
import { checkLinearizable, describeResult } from "../support/linearizability/checker.ts";
import { kvModel } from "../support/linearizability/kv-model.ts";
import { faultSchedule, inject } from "./faults.ts";
import { lostWrites } from "./lost-writes.ts";
import { seededRng } from "../support/seeded-rng.ts";
import { checkAcknowledgedWrites, checkHistory, checkStream, readStream, type StreamRecord } from "./stream-check.ts";
import { StoreCluster, STREAM } from "./store-cluster.ts";
import { Workload } from "./workload.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CONFIG = LONG
  ? { clients: 16, keys: 6, rounds: 4, downMs: 3000, pauseMs: 5000, settleMs: 2000, timeoutMs: 3000 }
  : { clients: 8, keys: 4, rounds: 1, downMs: 2000, pauseMs: 3000, settleMs: 1500, timeoutMs: 2000 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("store under faults (3 real processes, real Redis)", () => {
  let cluster: StoreCluster | undefined;
  const schedule: string[] = [];
  const started = performance.now();
  const log = (line: string) => schedule.push(`${((performance.now() - started) / 1000).toFixed(1)}s ${line}`);
  const report = (what: string) => `seed ${SEED} (CHAOS_SEED=${SEED}${LONG ? " LONG=1" : ""})\nfault schedule:\n  ${schedule.join("\n  ")}\n${what}`;

  beforeAll(async () => {
    cluster = await StoreCluster.start(3);
    log(`cluster up: ${cluster.endpoints.join(", ")}; redis ${cluster.redis.url}`);
  }, 90_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it(
    "stays linearizable, loses no acknowledged write and keeps the revision stream whole",
    async () => {
      const c = cluster as StoreCluster;
      const rng = seededRng(SEED);
      const keys = Array.from({ length: CONFIG.keys }, (_, i) => `/chaos/k${i}`);
      const workload = new Workload({ clients: CONFIG.clients, keys, endpoints: c.endpoints, seed: SEED, timeoutMs: CONFIG.timeoutMs });
      const kv = new EtcdKv(c.endpoints, { callTimeoutMs: 10_000, retryBudgetMs: 30_000 });
      const before: Array<{ records: StreamRecord[]; revision: number }> = [];
      try {
        workload.start();
        await sleep(CONFIG.settleMs);
        const faults = faultSchedule(rng, CONFIG.rounds);
        log(`faults: ${faults.join(", ")}`);
        for (const fault of faults) {
          await inject(c, fault, rng, CONFIG, log, {
            beforeRedisRestart: async () => {
              before.push({ records: await readStream(c.redis.url, STREAM), revision: await c.revision() });
            },
          });
          await sleep(CONFIG.settleMs);
        }
        await workload.stop();
        log("load stopped");
        await c.waitForQuiet();
        await workload.finalReads();
        const finalRevision = await c.revision();
        log(`final revision ${finalRevision}`);

        const ops = workload.history.ops;
        const pending = ops.filter((o) => o.returned === undefined).length;
        const t0 = performance.now();
        const result = checkLinearizable(kvModel, ops);
        const checkMs = performance.now() - t0;
        log(`${ops.length} operations (${pending} pending); errors: ${JSON.stringify(Object.fromEntries(workload.history.errors))}; linearizability check ${checkMs.toFixed(0)} ms`);
        expect(result.ok, report(describeResult(kvModel, result))).toBe(true);
        expect(lostWrites(ops, result.partitions), report("lost writes")).toEqual([]);

        // The stream catches up with the store (the leader publishes asynchronously).
        let records: StreamRecord[] = [];
        const deadline = Date.now() + 15_000;
        do {
          records = await readStream(c.redis.url, STREAM);
          if (records.length > 0 && records[records.length - 1].entry.revision >= finalRevision) break;
          await sleep(200);
        } while (Date.now() < deadline);
        const history: RevisionChange[] = await kv.history(0, finalRevision);
        log(`stream ${records[0]?.id ?? "-"} .. ${records[records.length - 1]?.id ?? "-"} (${records.length} entries); ${before.map((b) => `${b.records.length} entries before a Redis restart`).join(", ")}`);
        const problems = [
          ...checkHistory(history, finalRevision),
          ...checkAcknowledgedWrites(ops, history),
          ...before.flatMap((b, i) => checkStream(`stream before Redis restart ${i + 1}`, b.records, history, undefined)),
          ...checkStream("stream at the end", records, history, finalRevision),
        ];
        expect(problems, report("stream and history problems")).toEqual([]);
        expect(ops.filter((o) => o.output !== undefined && o.input.kind !== "get").length, report("too few writes")).toBeGreaterThan(100);
        console.log(schedule.join("\n"));
      } catch (err) {
        console.error(report(`store output:\n${c.outputTail()}`));
        throw err;
      } finally {
        await workload.stop();
        workload.close();
        await kv.close();
      }
    },
    LONG ? 600_000 : 120_000,
  );
});
