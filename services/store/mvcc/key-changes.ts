/**
 * A revision's changes with string keys: the form the revision stream carries and
 * the apiserver consumes (value after a PUT, value before the change, revisions).
 */
import type { RevisionChange } from "./types.ts";

export interface StringKeyChange {
  type: "PUT" | "DELETE";
  key: string;
  value?: Uint8Array;
  prevValue?: Uint8Array;
  createRevision: number;
  modRevision: number;
  version: number;
}

const dec = new TextDecoder();

export function stringKeyChanges(change: RevisionChange): StringKeyChange[] {
  return change.events.map((e) => ({
    type: e.type,
    key: dec.decode(e.kv.key),
    value: e.type === "PUT" ? e.kv.value : undefined,
    prevValue: e.prevKv?.value,
    createRevision: e.kv.createRevision,
    modRevision: e.kv.modRevision,
    version: e.kv.version,
  }));
}
