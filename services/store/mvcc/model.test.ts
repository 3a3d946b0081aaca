import { describe, expect, it } from "vitest";
import { ErrCompacted } from "./errors.ts";
import { decodeRequest, encodeRequest } from "./request-codec.ts";
import { MvccStore } from "./store.ts";
import { b, rng, str } from "./testing/helpers.ts";
import type { Compare, KeyValue, KvEvent, RequestOp, StoreRequest, TxnRequest } from "./types.ts";

/**
 * Randomized check against a deliberately naive reference model: a plain map of
 * revision → full state, rebuilt by copying the whole state for every write. Each
 * step goes through the log entry codec, as replicas see it.
 */

interface RefKv {
  value: string;
  create: number;
  mod: number;
  version: number;
  lease: bigint;
}
type RefState = Map<string, RefKv>;

const KEYS = ["a", "b", "c", "p/1", "p/2", "p/3", "q"];

function fmt(key: string, kv: RefKv | undefined): string {
  return kv === undefined ? `${key}:absent` : `${key}=${kv.value}@${kv.create}/${kv.mod}/v${kv.version}/l${kv.lease}`;
}

function fmtKv(kv: KeyValue): string {
  return `${str(kv.key)}=${str(kv.value)}@${kv.createRevision}/${kv.modRevision}/v${kv.version}/l${kv.lease}`;
}

function fmtEvent(e: KvEvent): string {
  return `${e.type} ${fmtKv(e.kv)}${e.prevKv ? ` prev ${fmtKv(e.prevKv)}` : ""}`;
}

/** [key, end) in the model's string keys; end null = unbounded, undefined = single key. */
function inRange(k: string, key: string, end: string | null | undefined): boolean {
  if (end === undefined) return k === key;
  return k >= key && (end === null || k < end);
}

function rangeOf(r: { key: Uint8Array; rangeEnd?: Uint8Array }): [string, string | null | undefined] {
  const end = r.rangeEnd;
  if (end === undefined || end.length === 0) return [str(r.key), undefined];
  if (end.length === 1 && end[0] === 0) return [str(r.key), null];
  return [str(r.key), str(end)];
}

class Model {
  rev = 1;
  compactRev = 0;
  states = new Map<number, RefState>([[1, new Map()]]);
  events = new Map<number, string[]>();
  leases = new Map<bigint, number>();

  get state(): RefState {
    return this.states.get(this.rev) ?? new Map();
  }

  private compareHolds(c: Compare, state: RefState): boolean {
    const [key, end] = rangeOf(c);
    const kvs = [...state].filter(([k]) => inRange(k, key, end)).map(([, kv]) => kv);
    const one = (kv: RefKv | undefined): boolean => {
      let d: number;
      switch (c.target) {
        case "VALUE":
          d = (kv?.value ?? "") < str(c.value) ? -1 : (kv?.value ?? "") > str(c.value) ? 1 : 0;
          break;
        case "VERSION":
          d = (kv?.version ?? 0) - c.version;
          break;
        case "CREATE":
          d = (kv?.create ?? 0) - c.createRevision;
          break;
        case "MOD":
          d = (kv?.mod ?? 0) - c.modRevision;
          break;
        case "LEASE":
          d = Number((kv?.lease ?? 0n) - c.lease);
          break;
      }
      return c.result === "EQUAL" ? d === 0 : c.result === "NOT_EQUAL" ? d !== 0 : c.result === "GREATER" ? d > 0 : d < 0;
    };
    if (kvs.length === 0) return c.target !== "VALUE" && one(undefined);
    return kvs.every(one);
  }

  /** Returns "ok:<succeeded>" or "error:<code>"; commits a new revision when something changed. */
  apply(req: StoreRequest): string {
    const work: RefState = new Map(this.state);
    const evs: string[] = [];
    const next = this.rev + 1;
    const put = (key: string, value: string, lease: bigint) => {
      const prev = work.get(key);
      const kv: RefKv = { value, create: prev?.create ?? next, mod: next, version: (prev?.version ?? 0) + 1, lease };
      work.set(key, kv);
      evs.push(`PUT ${fmt(key, kv)}${prev ? ` prev ${fmt(key, prev)}` : ""}`);
    };
    const del = (key: string, end: string | null | undefined) => {
      for (const k of [...work.keys()].sort()) {
        if (!inRange(k, key, end)) continue;
        evs.push(`DELETE ${k}=@0/${next}/v0/l0 prev ${fmt(k, work.get(k))}`);
        work.delete(k);
      }
    };
    let outcome = "ok";
    switch (req.type) {
      case "put": {
        const l = req.request.lease ?? 0n;
        if (l !== 0n && !this.leases.has(l)) return "error:lease-not-found";
        put(str(req.request.key), str(req.request.value ?? new Uint8Array()), l);
        break;
      }
      case "deleteRange":
        del(...rangeOf(req.request));
        break;
      case "txn": {
        const pre = this.state;
        const path = new Map<TxnRequest, boolean>();
        const decide = (t: TxnRequest) => {
          const ok = (t.compare ?? []).every((c) => this.compareHolds(c, pre));
          path.set(t, ok);
          for (const op of (ok ? t.success : t.failure) ?? []) if (op.type === "txn") decide(op.request);
        };
        decide(req.request);
        const check = (t: TxnRequest): string | null => {
          for (const op of (path.get(t) ? t.success : t.failure) ?? []) {
            if (op.type === "put" && (op.request.lease ?? 0n) !== 0n && !this.leases.has(op.request.lease ?? 0n)) {
              return "error:lease-not-found";
            }
            if (op.type === "txn") {
              const e = check(op.request);
              if (e !== null) return e;
            }
          }
          return null;
        };
        const err = check(req.request);
        if (err !== null) return err;
        const run = (t: TxnRequest) => {
          for (const op of (path.get(t) ? t.success : t.failure) ?? []) {
            if (op.type === "put") put(str(op.request.key), str(op.request.value ?? new Uint8Array()), op.request.lease ?? 0n);
            else if (op.type === "deleteRange") del(...rangeOf(op.request));
            else if (op.type === "txn") run(op.request);
          }
        };
        run(req.request);
        outcome = `ok:${path.get(req.request)}`;
        break;
      }
      case "compact": {
        const r = req.request.revision;
        if (r <= this.compactRev) return "error:compacted";
        if (r > this.rev) return "error:future-revision";
        for (const rev of [...this.states.keys()]) if (rev < r) this.states.delete(rev);
        for (const rev of [...this.events.keys()]) if (rev < r) this.events.delete(rev);
        this.compactRev = r;
        return outcome;
      }
      case "leaseGrant":
        if (this.leases.has(req.request.id)) return "error:lease-exists";
        this.leases.set(req.request.id, req.request.ttl);
        return outcome;
      case "leaseRevoke": {
        const id = req.request.id;
        if (!this.leases.has(id)) return "error:lease-not-found";
        for (const [k, kv] of [...work].sort(([x], [y]) => (x < y ? -1 : 1))) if (kv.lease === id) del(k, undefined);
        this.leases.delete(id);
        break;
      }
    }
    if (evs.length > 0) {
      this.rev = next;
      this.states.set(next, work);
      this.events.set(next, evs);
    }
    return outcome;
  }
}

function randomRequest(rand: () => number, model: Model): StoreRequest {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const key = () => b(pick(KEYS));
  const leaseIds = [...model.leases.keys()];
  const lease = () => (rand() < 0.3 ? (leaseIds.length > 0 && rand() < 0.9 ? pick(leaseIds) : 99n) : 0n);
  const value = () => b(`v${Math.floor(rand() * 5)}`);
  const range = () =>
    pick([
      { key: key() },
      { key: b("p/"), rangeEnd: b("p0") },
      { key: b("b"), rangeEnd: new Uint8Array([0]) },
      { key: b("a"), rangeEnd: b("c") },
    ]);
  const compare = (): Compare => {
    const result = pick(["EQUAL", "NOT_EQUAL", "GREATER", "LESS"] as const);
    const base = { ...range(), result };
    switch (pick(["VERSION", "CREATE", "MOD", "VALUE", "LEASE"] as const)) {
      case "VERSION":
        return { ...base, target: "VERSION", version: Math.floor(rand() * 4) };
      case "CREATE":
        return { ...base, target: "CREATE", createRevision: Math.floor(rand() * (model.rev + 2)) };
      case "MOD":
        return { ...base, target: "MOD", modRevision: Math.floor(rand() * (model.rev + 2)) };
      case "VALUE":
        return { ...base, target: "VALUE", value: value() };
      case "LEASE":
        return { ...base, target: "LEASE", lease: lease() };
    }
  };
  const ops = (depth: number): RequestOp[] =>
    Array.from({ length: Math.floor(rand() * 4) }, (): RequestOp => {
      const r = rand();
      if (r < 0.45) return { type: "put", request: { key: key(), value: value(), lease: lease() } };
      if (r < 0.7) return { type: "deleteRange", request: range() };
      if (r < 0.9 || depth >= 2) return { type: "range", request: range() };
      return { type: "txn", request: txn(depth + 1) };
    });
  const txn = (depth: number): TxnRequest => ({
    compare: Array.from({ length: Math.floor(rand() * 3) }, compare),
    success: ops(depth),
    failure: ops(depth),
  });
  const r = rand();
  if (r < 0.4) return { type: "put", request: { key: key(), value: value(), lease: lease(), prevKv: rand() < 0.5 } };
  if (r < 0.55) return { type: "deleteRange", request: { ...range(), prevKv: rand() < 0.5 } };
  if (r < 0.8) return { type: "txn", request: txn(0) };
  if (r < 0.86) return { type: "leaseGrant", request: { id: BigInt(1 + Math.floor(rand() * 6)), ttl: 10 } };
  if (r < 0.9) return { type: "leaseRevoke", request: { id: BigInt(1 + Math.floor(rand() * 6)) } };
  if (r < 0.94) return { type: "compact", request: { revision: model.compactRev + Math.floor(rand() * (model.rev - model.compactRev + 2)) } };
  return { type: "put", request: { key: key(), value: value() } };
}

function outcomeOf(res: ReturnType<MvccStore["apply"]>): string {
  if (res.result.type === "error") return `error:${res.result.error.code}`;
  if (res.result.type === "txn") return `ok:${res.result.response.succeeded}`;
  return "ok";
}

function stateAt(s: MvccStore, rev: number): string[] {
  return s.range({ key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]), revision: rev }).kvs.map(fmtKv);
}

function modelStateAt(m: Model, rev: number): string[] {
  return [...(m.states.get(rev) ?? new Map<string, RefKv>())].sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, kv]) => fmt(k, kv));
}

function run(seed: number, steps: number): { store: MvccStore; model: Model } {
  const rand = rng(seed);
  const model = new Model();
  let store = new MvccStore();
  for (let step = 0; step < steps; step++) {
    const req = randomRequest(rand, model);
    const res = store.apply(decodeRequest(encodeRequest(req)));
    const expected = model.apply(req);
    const where = `seed ${seed} step ${step} ${req.type}`;
    expect(outcomeOf(res), where).toBe(expected);
    expect(store.currentRevision, where).toBe(model.rev);
    expect(res.revision, where).toBe(model.rev);
    expect(res.change?.events.map(fmtEvent) ?? [], where).toEqual(res.change ? (model.events.get(model.rev) ?? []) : []);

    // reads at a random retained revision, and below the compact revision
    const rev = model.compactRev + Math.floor(rand() * (model.rev - model.compactRev + 1));
    if (rev >= 1 && model.states.has(rev)) expect(stateAt(store, rev), `${where} at ${rev}`).toEqual(modelStateAt(model, rev));
    if (model.compactRev > 1) expect(() => stateAt(store, model.compactRev - 1)).toThrow(ErrCompacted);

    if (step % 50 === 49) {
      const since = Math.max(model.compactRev, 2);
      const fromStore = store.changesSince(since).flatMap((c) => c.events.map((e) => `${c.revision} ${fmtEvent(e)}`));
      const fromModel = [...model.events].filter(([r]) => r >= since).flatMap(([r, evs]) => evs.map((e) => `${r} ${e}`));
      expect(fromStore, where).toEqual(fromModel);
      // continue from a restored snapshot: replicas that install a snapshot must not diverge
      store = MvccStore.fromSnapshot(store.snapshot());
    }
  }
  expect(stateAt(store, model.rev)).toEqual(modelStateAt(model, model.rev));
  return { store, model };
}

describe("against a reference model", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`seed ${seed}: responses, events, reads at past revisions and history agree`, () => {
      run(seed, 400);
    });
  }

  it("the same sequence of applies gives the same state bytes", () => {
    const a = run(42, 300).store;
    const c = run(42, 300).store;
    expect(c.snapshot()).toEqual(a.snapshot());
    const other = run(43, 300).store;
    expect(other.snapshot()).not.toEqual(a.snapshot());
  });
});
