/**
 * Turns key changes into watch events for one watcher, with the platform's rule for
 * filtered watches: an object that starts matching is ADDED, one that stops matching
 * is DELETED, one that matches before and after is MODIFIED.
 */
import type { Predicate, WatchEvent } from "./interface.ts";
import type { KeyChange, RevisionChange } from "./kv.ts";
import type { JsonObject } from "./object.ts";
import { corruptionOf, decodeStored } from "./corrupt-object.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

export interface WatchFilter {
  prefix: string;
  predicate?: Predicate;
}

/** A decoded key change: the object after and before the change (either may be absent). */
export interface DecodedChange {
  key: string;
  revision: number;
  current?: JsonObject;
  previous?: JsonObject;
}

/**
 * `held`: the object before the change when the caller already holds it decoded (the
 * watch cache's own, which nobody mutates). The previous object is then a shallow copy
 * of it carrying the change's revision, as decoding `prevValue` would give, instead of a
 * second decode of the same bytes; nested values are shared, and stay unmutated too.
 * A corrupt placeholder is not used: `prevValue` is decoded as without one.
 */
export function decodeChange(change: KeyChange, revision: number, held?: Readonly<JsonObject>): DecodedChange {
  const out: DecodedChange = { key: change.key, revision };
  if (change.type === "PUT" && change.value) out.current = decodeStored(change.key, change.value, change.modRevision);
  if (change.prevValue) out.previous = held && !corruptionOf(held) ? atRevision(held, revision) : decodeStored(change.key, change.prevValue, revision);
  return out;
}

function atRevision(obj: Readonly<JsonObject>, revision: number): JsonObject {
  return { ...obj, metadata: { ...(obj.metadata as JsonObject), resourceVersion: String(revision) } };
}

/**
 * The events of one change, each made at most once: every watcher of the change that
 * sees the same kind of event gets the same (never mutated) event object.
 */
export interface ChangeEvents {
  added?: WatchEvent;
  modified?: WatchEvent;
  deleted?: WatchEvent;
  /** DELETED for a watcher whose selector stops matching: the object after the change. */
  stoppedMatching?: WatchEvent;
}

/** The event (if any) a watcher with this predicate sees for a decoded change; `shared` reuses events across watchers of one change. */
export function eventFor(change: DecodedChange, predicate: Predicate | undefined, shared: ChangeEvents = {}): WatchEvent | undefined {
  // A value written as garbage is no object to announce; its removal is (DELETED with its name).
  if (change.current !== undefined && corruptionOf(change.current)) return undefined;
  const match = predicate ?? (() => true);
  const now = change.current !== undefined && match(change.current);
  const before = change.previous !== undefined && match(change.previous);
  if (change.current === undefined) {
    if (!before || !change.previous) return undefined;
    return (shared.deleted ??= { type: "DELETED", object: change.previous, revision: change.revision });
  }
  if (now && before) return (shared.modified ??= { type: "MODIFIED", object: change.current, revision: change.revision });
  if (now) return (shared.added ??= { type: "ADDED", object: change.current, revision: change.revision });
  if (before && change.previous) {
    return (shared.stoppedMatching ??= { type: "DELETED", object: cloneValue(change.current), revision: change.revision });
  }
  return undefined;
}

export function keyEventsToWatchEvents(change: RevisionChange, filter: WatchFilter): WatchEvent[] {
  const events: WatchEvent[] = [];
  for (const kc of change.changes) {
    if (!kc.key.startsWith(filter.prefix)) continue;
    const ev = eventFor(decodeChange(kc, change.revision), filter.predicate);
    if (ev) events.push(ev);
  }
  return events;
}
