/**
 * A revision's changes with string keys: the form the revision stream carries and
 * the apiserver consumes (value after a PUT, value before the change, revisions).
 */
import type { StreamKeyChange } from "../../../shared/stream/revision-entry.ts";
import type { RevisionChange } from "./types.ts";

/** The stream entry format's key change: one definition for publisher and reader. */
export type StringKeyChange = StreamKeyChange;

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
