/**
 * Seeded random histories, checked by the checker and by brute force: histories
 * produced by a real register with random linearization points (always
 * linearizable), some with pending operations (taken effect or not), and some with
 * one output corrupted (often not linearizable). The two checkers must agree.
 */
import { describe, expect, it } from "vitest";
import { bruteForceLinearizable } from "./brute-force.ts";
import { checkLinearizable, describeResult } from "./checker.ts";
import { seededRng as rng } from "../seeded-rng.ts";
import { cutAt, type Operation } from "./history.ts";
import { kvModel, type KvInput, type KvOutput } from "./kv-model.ts";

type Op = Operation<KvInput, KvOutput>;
const SEEDS = process.env.LONG === "1" ? 20_000 : 3_000;


interface Planned {
  op: Op;
  /** When it takes effect; undefined: never (a pending operation that was lost). */
  at: number | undefined;
}

function randomInput(r: () => number, keys: string[], n: number, written: string[], revs: number[]): KvInput {
  const key = keys[Math.floor(r() * keys.length)];
  const pick = r();
  if (pick < 0.3) return { kind: "put", key, value: `v${n}` };
  if (pick < 0.6) return { kind: "get", key };
  if (pick < 0.7) return { kind: "delete", key };
  if (r() < 0.5) return { kind: "cas", key, expect: { value: r() < 0.2 || written.length === 0 ? null : written[Math.floor(r() * written.length)] }, value: `v${n}` };
  return { kind: "cas", key, expect: { modRevision: r() < 0.2 || revs.length === 0 ? 0 : revs[Math.floor(r() * revs.length)] }, value: `v${n}` };
}

/** A history a correct store could produce, by applying operations at random points. */
function generate(seed: number): Op[] {
  const r = rng(seed);
  const keys = r() < 0.7 ? ["x"] : ["x", "y"];
  const count = 2 + Math.floor(r() * 6);
  const planned: Planned[] = [];
  for (let i = 0; i < count; i++) {
    const called = Math.floor(r() * 60);
    const returned = called + 1 + Math.floor(r() * 30);
    const pending = r() < 0.15;
    const at = pending && r() < 0.5 ? undefined : called + r() * (pending ? 100 : returned - called);
    const input = randomInput(r, keys, i, [`v${Math.floor(r() * count)}`], [2 + Math.floor(r() * count)]);
    planned.push({ op: { id: i, client: i, input, called, returned: pending ? undefined : returned }, at });
  }
  const store = new Map<string, { value: string; rev: number }>();
  let revision = 1;
  for (const p of [...planned].filter((x) => x.at !== undefined).sort((a, b) => (a.at as number) - (b.at as number))) {
    const inp = p.op.input;
    const cur = store.get(inp.key);
    let out: KvOutput;
    switch (inp.kind) {
      case "put":
        store.set(inp.key, { value: inp.value, rev: ++revision });
        out = { kind: "put", revision };
        break;
      case "get":
        out = { kind: "get", value: cur?.value ?? null, modRevision: cur?.rev };
        break;
      case "delete":
        if (cur !== undefined) revision++;
        store.delete(inp.key);
        out = { kind: "delete", deleted: cur === undefined ? 0 : 1 };
        break;
      case "cas": {
        const ok = "value" in inp.expect ? (cur?.value ?? null) === inp.expect.value : (cur?.rev ?? 0) === inp.expect.modRevision;
        if (ok) store.set(inp.key, { value: inp.value, rev: ++revision });
        out = { kind: "cas", ok, revision: ok ? revision : undefined };
        break;
      }
    }
    if (p.op.returned !== undefined) p.op.output = out;
  }
  return planned.map((p) => p.op);
}

function corrupt(ops: Op[], r: () => number): void {
  const done = ops.filter((o) => o.output !== undefined);
  if (done.length === 0) return;
  const op = done[Math.floor(r() * done.length)];
  const out = op.output as KvOutput;
  switch (out.kind) {
    case "get":
      op.output = r() < 0.5 ? { kind: "get", value: out.value === null ? `v${Math.floor(r() * ops.length)}` : null } : { ...out, modRevision: (out.modRevision ?? 0) + 1 };
      break;
    case "cas":
      op.output = { kind: "cas", ok: !out.ok };
      break;
    case "delete":
      op.output = { kind: "delete", deleted: 1 - (out.deleted ?? 0) };
      break;
    case "put":
      op.output = { kind: "put", revision: (out.revision ?? 0) + 100 };
      break;
  }
}

describe("random histories: checker agrees with brute force", () => {
  it(`${SEEDS} seeds`, () => {
    let failing = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const ops = generate(seed);
      const clean = checkLinearizable(kvModel, ops);
      expect(clean.ok, `seed ${seed}: generated history must be linearizable\n${describeResult(kvModel, clean)}`).toBe(true);
      const r = rng(seed * 7919);
      corrupt(ops, r);
      const want = bruteForceLinearizable(kvModel, ops);
      const got = checkLinearizable(kvModel, ops);
      if (!want) failing++;
      expect(got.ok, `seed ${seed}: ${JSON.stringify(ops)}`).toBe(want);
      if (got.ok === false) {
        for (const p of got.partitions) {
          if (p.ok !== false) continue;
          // The reported prefix fails, and cutting before the culprit's return does not.
          expect(bruteForceLinearizable(kvModel, p.prefix), `seed ${seed}: prefix`).toBe(false);
          const part = ops.filter((o) => o.input.key === p.partition);
          const earlier = part.map((o) => o.returned).filter((t): t is number => t !== undefined && t < (p.culprit?.returned ?? 0));
          if (earlier.length > 0) expect(bruteForceLinearizable(kvModel, cutAt(part, Math.max(...earlier))), `seed ${seed}: shorter prefix`).toBe(true);
        }
      }
    }
    // The corrupted histories must exercise both answers.
    expect(failing).toBeGreaterThan(SEEDS / 10);
    expect(failing).toBeLessThan(SEEDS);
  });
});
