/**
 * The search for one partition: Wing & Gong's algorithm with Lowe's memoization, as
 * Porcupine implements it. Call and return events sit in one doubly linked list in
 * time order; the search linearizes a call whose operation the model accepts (moving
 * the call and its return out of the list), and backtracks when it meets a return
 * whose call is not linearized yet. A (linearized set, state set) pair seen before
 * is not explored again.
 *
 * Pending operations have their return at +infinity, so they may be linearized
 * anywhere after their call; the search succeeds once every completed operation is
 * linearized (pending ones left over take effect after everything, or never).
 */
import type { Operation } from "./history.ts";
import type { Model } from "./model.ts";

export type SearchResult = { ok: true; order: number[] } | { ok: false } | { ok: "unknown"; reason: string };

interface Entry {
  call: boolean;
  /** Index into the partition's operations. */
  op: number;
  time: number;
  prev: Entry | undefined;
  next: Entry | undefined;
  /** The call's return entry. */
  match: Entry | undefined;
}

function buildList<I, O>(ops: readonly Operation<I, O>[]): Entry {
  const entries: Entry[] = [];
  ops.forEach((op, i) => {
    const ret: Entry = { call: false, op: i, time: op.returned ?? Number.POSITIVE_INFINITY, prev: undefined, next: undefined, match: undefined };
    entries.push({ call: true, op: i, time: op.called, prev: undefined, next: undefined, match: ret }, ret);
  });
  // At equal times calls come first: operations that touch at an instant overlap.
  entries.sort((a, b) => a.time - b.time || (a.call === b.call ? a.op - b.op : a.call ? -1 : 1));
  const head: Entry = { call: false, op: -1, time: Number.NEGATIVE_INFINITY, prev: undefined, next: undefined, match: undefined };
  let last = head;
  for (const e of entries) {
    last.next = e;
    e.prev = last;
    last = e;
  }
  return head;
}

function lift(e: Entry): void {
  const m = e.match as Entry;
  (e.prev as Entry).next = e.next;
  (e.next as Entry).prev = e.prev;
  (m.prev as Entry).next = m.next;
  if (m.next !== undefined) m.next.prev = m.prev;
}

function unlift(e: Entry): void {
  const m = e.match as Entry;
  (m.prev as Entry).next = m;
  if (m.next !== undefined) m.next.prev = m;
  (e.prev as Entry).next = e;
  (e.next as Entry).prev = e;
}

class StateSet<S> {
  readonly key: string;
  private constructor(
    readonly states: S[],
    keys: string[],
  ) {
    this.key = keys.sort().join("\u0001");
  }

  static of<S>(model: Model<S, unknown, unknown>, states: S[]): StateSet<S> {
    const byKey = new Map<string, S>();
    for (const s of states) byKey.set(model.stateKey(s), s);
    return new StateSet([...byKey.values()], [...byKey.keys()]);
  }
}

class Bits {
  readonly words: Uint16Array;
  constructor(n: number) {
    this.words = new Uint16Array(Math.ceil(n / 16) + 1);
  }
  set(i: number): void {
    this.words[i >> 4] |= 1 << (i & 15);
  }
  clear(i: number): void {
    this.words[i >> 4] &= ~(1 << (i & 15));
  }
  key(): string {
    let s = "";
    for (let i = 0; i < this.words.length; i += 4096) s += String.fromCharCode(...this.words.subarray(i, i + 4096));
    return s;
  }
}

/** Checks one partition's operations against the model within `maxSteps` search steps. */
export function searchPartition<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[], maxSteps: number): SearchResult {
  const head = buildList(ops);
  const m = model as unknown as Model<S, unknown, unknown>;
  let state = StateSet.of(m, [model.init()]);
  let completedLeft = ops.filter((o) => o.returned !== undefined).length;
  const linearized = new Bits(ops.length);
  const seen = new Set<string>();
  const stack: Array<{ entry: Entry; state: StateSet<S> }> = [];
  let entry = head.next;
  let steps = 0;
  while (completedLeft > 0) {
    if (++steps > maxSteps) return { ok: "unknown", reason: `search gave up after ${maxSteps} steps` };
    if (entry !== undefined && entry.call) {
      const call: Entry = entry;
      const op = ops[call.op];
      const next: S[] = [];
      for (const s of state.states) next.push(...model.step(s, op.input, op.output));
      let advanced = false;
      if (next.length > 0) {
        const nextSet = StateSet.of(m, next);
        linearized.set(call.op);
        const key = `${linearized.key()}|${nextSet.key}`;
        if (!seen.has(key)) {
          seen.add(key);
          stack.push({ entry: call, state });
          state = nextSet;
          lift(call);
          if (op.returned !== undefined) completedLeft--;
          entry = head.next;
          advanced = true;
        } else linearized.clear(call.op);
      }
      if (!advanced) entry = call.next;
    } else {
      // A return whose call is not linearized (or no call left to try): undo the last choice.
      const top = stack.pop();
      if (top === undefined) return { ok: false };
      state = top.state;
      linearized.clear(top.entry.op);
      if (ops[top.entry.op].returned !== undefined) completedLeft++;
      unlift(top.entry);
      entry = top.entry.next;
    }
  }
  return { ok: true, order: stack.map((f) => ops[f.entry.op].id) };
}
