/**
 * The key-value register model: each key holds a value or nothing, plus the
 * revision of its last write (etcd's mod_revision; 0 when absent).
 *
 * Operations: put, get, delete and compare-and-set (a txn comparing the key's
 * mod_revision or value, putting a new value when it matches). Outputs carry the
 * revisions the store reported; a pending put leaves the key's revision unknown
 * until a later read reveals it. A compare against an unknown revision may go
 * either way (the checker follows both).
 */
import type { Model } from "./model.ts";

export type KvInput =
  | { kind: "put"; key: string; value: string }
  | { kind: "get"; key: string }
  | { kind: "delete"; key: string }
  | { kind: "cas"; key: string; expect: { modRevision: number } | { value: string | null }; value: string };

export type KvOutput =
  | { kind: "put"; revision?: number }
  | { kind: "get"; value: string | null; modRevision?: number }
  | { kind: "delete"; deleted?: number }
  | { kind: "cas"; ok: boolean; revision?: number };

export interface KvState {
  value: string | null;
  /** mod_revision of the current value; 0 when absent; undefined when unknown. */
  rev: number | undefined;
}

const ABSENT: KvState = { value: null, rev: 0 };

type Match = "yes" | "no" | "maybe";

function matches(s: KvState, expect: { modRevision: number } | { value: string | null }): Match {
  if ("value" in expect) return s.value === expect.value ? "yes" : "no";
  if (expect.modRevision === 0) return s.value === null ? "yes" : "no";
  if (s.value === null) return "no";
  if (s.rev === undefined) return "maybe";
  return s.rev === expect.modRevision ? "yes" : "no";
}

function stepGet(s: KvState, out: Extract<KvOutput, { kind: "get" }>): KvState[] {
  if (s.value !== out.value) return [];
  if (out.value === null || out.modRevision === undefined) return [s];
  if (s.rev === undefined) return [{ value: s.value, rev: out.modRevision }];
  return s.rev === out.modRevision ? [s] : [];
}

function stepCas(s: KvState, input: Extract<KvInput, { kind: "cas" }>, out: Extract<KvOutput, { kind: "cas" }> | undefined): KvState[] {
  const m = matches(s, input.expect);
  const next: KvState[] = [];
  if (m !== "no" && (out === undefined || out.ok)) next.push({ value: input.value, rev: out?.revision });
  if (m !== "yes" && (out === undefined || !out.ok)) next.push(s);
  return next;
}

export const kvModel: Model<KvState, KvInput, KvOutput> = {
  init: () => ABSENT,

  step(s, input, output) {
    if (output !== undefined && output.kind !== input.kind) return [];
    switch (input.kind) {
      case "put":
        return [{ value: input.value, rev: output?.kind === "put" ? output.revision : undefined }];
      case "get":
        return output?.kind === "get" ? stepGet(s, output) : [s];
      case "delete":
        if (output?.kind === "delete" && output.deleted !== undefined && output.deleted !== (s.value === null ? 0 : 1)) return [];
        return [ABSENT];
      case "cas":
        return stepCas(s, input, output?.kind === "cas" ? output : undefined);
    }
  },

  stateKey: (s) => `${s.value === null ? "\u0000" : `=${s.value}`}@${s.rev ?? "?"}`,

  partitionKey: (input) => input.key,

  describe(input, output) {
    const res = output === undefined ? "pending" : describeOutput(output);
    switch (input.kind) {
      case "put":
        return `put(${input.key}, ${input.value}) -> ${res}`;
      case "get":
        return `get(${input.key}) -> ${res}`;
      case "delete":
        return `delete(${input.key}) -> ${res}`;
      case "cas": {
        const e = "value" in input.expect ? `value=${input.expect.value ?? "absent"}` : `mod=${input.expect.modRevision}`;
        return `cas(${input.key}, ${e}, ${input.value}) -> ${res}`;
      }
    }
  },
};

function describeOutput(o: KvOutput): string {
  switch (o.kind) {
    case "put":
      return `ok@${o.revision ?? "?"}`;
    case "get":
      return o.value === null ? "absent" : `${o.value}@${o.modRevision ?? "?"}`;
    case "delete":
      return `deleted=${o.deleted ?? "?"}`;
    case "cas":
      return o.ok ? `ok@${o.revision ?? "?"}` : "failed";
  }
}
