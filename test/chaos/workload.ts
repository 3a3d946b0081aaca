/**
 * Concurrent client load for the chaos tests: N recording clients, each in a loop
 * of put / get / compare-and-set / delete on a small key set, every operation to a
 * random endpoint. Put and cas values are unique (client and sequence number).
 * A cas compares the mod_revision or the value this client last saw for the key
 * (mod_revision 0, "absent", when it saw nothing; by value only with `casByValue`).
 * The clients are the store's gRPC RecordingClient unless `client` makes others
 * (the cluster suite's HTTPS ApiRecordingClient).
 */
import type { KvInput, KvOutput } from "../support/linearizability/kv-model.ts";
import { History, RecordingClient } from "./recorder.ts";
import { pick, seededRng, type Rng } from "../support/seeded-rng.ts";

export interface WorkloadOptions {
  clients: number;
  keys: readonly string[];
  endpoints: readonly string[];
  seed: number;
  /** Deadline of each operation. */
  timeoutMs: number;
  /** Makes client `id` (default: a gRPC RecordingClient). */
  client?: (id: number, history: History) => OperationClient;
  /** Whether a cas may compare the value instead of the revision (default true). */
  casByValue?: boolean;
}

/** One recording client: runs an operation once against an endpoint and records it. */
export interface OperationClient {
  readonly id: number;
  run(endpoint: string, input: KvInput): Promise<KvOutput | undefined>;
  close(): void;
}

export class Workload {
  readonly history = new History();
  private stopped = false;
  private loops: Promise<void>[] = [];
  private readonly clients: OperationClient[] = [];

  constructor(private readonly opts: WorkloadOptions) {}

  private makeClient(id: number): OperationClient {
    return this.opts.client?.(id, this.history) ?? new RecordingClient(id, this.history, this.opts.timeoutMs);
  }

  start(): void {
    for (let c = 0; c < this.opts.clients; c++) {
      const client = this.makeClient(c);
      this.clients.push(client);
      this.loops.push(this.loop(client, seededRng(this.opts.seed * 1000 + c)));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  /** Reads every key once more with a healthy cluster (retrying until a read succeeds). */
  async finalReads(deadlineMs = 20_000): Promise<void> {
    const client = this.makeClient(this.opts.clients);
    const deadline = Date.now() + deadlineMs;
    try {
      for (const key of this.opts.keys) {
        let i = 0;
        while ((await client.run(this.opts.endpoints[i++ % this.opts.endpoints.length], { kind: "get", key })) === undefined) {
          if (Date.now() > deadline) throw new Error(`final read of ${key} did not succeed`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    } finally {
      client.close();
    }
  }

  close(): void {
    for (const c of this.clients) c.close();
  }

  private async loop(client: OperationClient, rng: Rng): Promise<void> {
    const seen = new Map<string, { value: string | null; rev: number }>();
    let n = 0;
    while (!this.stopped) {
      const key = pick(rng, this.opts.keys);
      const input = this.nextInput(rng, key, `c${client.id}-${n++}`, seen.get(key));
      const out = await client.run(pick(rng, this.opts.endpoints), input);
      if (out?.kind === "get") seen.set(key, { value: out.value, rev: out.modRevision ?? 0 });
      else if (out?.kind === "put" && input.kind === "put") seen.set(key, { value: input.value, rev: out.revision ?? 0 });
      else if (out?.kind === "cas" && out.ok && input.kind === "cas") seen.set(key, { value: input.value, rev: out.revision ?? 0 });
      else if (out?.kind === "delete") seen.set(key, { value: null, rev: 0 });
      else if (out === undefined) {
        seen.delete(key);
        await new Promise((r) => setTimeout(r, 20 + rng() * 50));
      }
      const pause = rng() * 4;
      if (pause >= 1) await new Promise((r) => setTimeout(r, pause));
    }
  }

  private nextInput(rng: Rng, key: string, value: string, seen: { value: string | null; rev: number } | undefined): KvInput {
    const r = rng();
    if (r < 0.3) return { kind: "put", key, value };
    if (r < 0.65) return { kind: "get", key };
    if (r < 0.72) return { kind: "delete", key };
    if (seen === undefined || seen.value === null) return { kind: "cas", key, expect: { modRevision: 0 }, value };
    if (rng() < 0.7 || this.opts.casByValue === false) return { kind: "cas", key, expect: { modRevision: seen.rev }, value };
    return { kind: "cas", key, expect: { value: seen.value }, value };
  }
}
