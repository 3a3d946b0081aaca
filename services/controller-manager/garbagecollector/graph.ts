/**
 * The garbage collector's dependency graph: a pure structure fed by watch events (no
 * I/O, no clock). Nodes are observed objects keyed by uid; edges run from an owner's
 * uid to its dependents. `observe`/`forget` return the uids whose state may now call
 * for work; `decide` says what that work is, from the graph alone, and `verdict` finishes
 * an attempt to delete once the owners not known to the graph were looked up.
 *
 * The rules are the platform's garbage collector's:
 * - an owner Terminating with the `orphan` finalizer: every dependent loses its reference
 *   to it, then the finalizer is removed;
 * - an owner Terminating with the `foregroundDeletion` finalizer: its dependents are
 *   deleted, and the finalizer is removed once no dependent that blocks the owner's
 *   deletion (`blockOwnerDeletion`) exists;
 * - a dependent with no owner left (absent, or another object under the same name) is
 *   deleted with the policy its own finalizers ask for (Background by default); one whose
 *   owners are only waiting for their dependents is deleted in the foreground when it
 *   has dependents itself; a dependent with a live owner keeps living and drops its
 *   references to absent or waiting owners.
 * Uids are never reused, so an owner seen deleted is known absent without a lookup.
 */
import type { OwnerReference, ResourceRef } from "../../../shared/client/object-client.ts";

export const ORPHAN_FINALIZER = "orphan";
export const FOREGROUND_FINALIZER = "foregroundDeletion";

/** Where an object lives: enough to read, patch or delete it. */
export interface ObjectIdentity {
  uid: string;
  resource: ResourceRef;
  namespace?: string;
  name: string;
}

/** What the graph keeps of one observed object. */
export interface ObservedObject extends ObjectIdentity {
  owners: OwnerReference[];
  deleting: boolean;
  finalizers: string[];
}

export type OwnerState = "solid" | "waiting" | "absent" | "unknown";

export type Decision =
  | { action: "none" }
  /** Remove the reference to `owner` from each dependent, then `owner`'s orphan finalizer. */
  | { action: "orphan"; owner: ObjectIdentity; dependents: ObjectIdentity[] }
  /** Attempt to delete the dependents not yet Terminating (uids to process); remove the finalizer when `finalize`. */
  | { action: "foreground"; owner: ObjectIdentity; dependents: string[]; finalize: boolean }
  /** Owners in state `unknown` must be looked up before `verdict`. */
  | { action: "attemptDelete"; item: ObservedObject; owners: Array<{ ref: OwnerReference; state: OwnerState }>; hasDependents: boolean };

export type Verdict =
  | { verdict: "keep" }
  | { verdict: "dropOwners"; uids: string[] }
  | { verdict: "delete"; policy: "Background" | "Foreground" | "Orphan" };

/** The decision after lookups: every owner state resolved (`unknown` counts as solid: never delete on doubt). */
export function verdict(item: ObservedObject, owners: Array<{ ref: OwnerReference; state: OwnerState }>, hasDependents: boolean): Verdict {
  if (owners.length === 0 || item.deleting) return { verdict: "keep" };
  const solid = owners.filter((o) => o.state === "solid" || o.state === "unknown");
  const waiting = owners.filter((o) => o.state === "waiting");
  const absent = owners.filter((o) => o.state === "absent");
  if (solid.length > 0) {
    const drop = [...absent, ...waiting].map((o) => o.ref.uid);
    return drop.length > 0 ? { verdict: "dropOwners", uids: drop } : { verdict: "keep" };
  }
  if (waiting.length > 0 && hasDependents) return { verdict: "delete", policy: "Foreground" };
  if (item.finalizers.includes(ORPHAN_FINALIZER)) return { verdict: "delete", policy: "Orphan" };
  if (item.finalizers.includes(FOREGROUND_FINALIZER)) return { verdict: "delete", policy: "Foreground" };
  return { verdict: "delete", policy: "Background" };
}

function sameOwners(a: OwnerReference[], b: OwnerReference[]): boolean {
  return a.length === b.length && a.every((r, i) => r.uid === b[i].uid && !!r.blockOwnerDeletion === !!b[i].blockOwnerDeletion);
}

export class DependencyGraph {
  private readonly nodes = new Map<string, ObservedObject>();
  private readonly dependents = new Map<string, Set<string>>();
  /** Uids seen deleted (bounded, oldest forgotten first). */
  private readonly absent = new Set<string>();

  constructor(private readonly absentCapacity = 100_000) {}

  get size(): number {
    return this.nodes.size;
  }

  has(uid: string): boolean {
    return this.nodes.has(uid);
  }

  get(uid: string): ObservedObject | undefined {
    return this.nodes.get(uid);
  }

  /** Uids of the objects that name `uid` as an owner. */
  dependentsOf(uid: string): string[] {
    return [...(this.dependents.get(uid) ?? [])];
  }

  private link(owner: string, dep: string): void {
    let set = this.dependents.get(owner);
    if (!set) this.dependents.set(owner, (set = new Set()));
    set.add(dep);
  }

  private unlink(owner: string, dep: string): void {
    const set = this.dependents.get(owner);
    if (!set) return;
    set.delete(dep);
    if (set.size === 0) this.dependents.delete(owner);
  }

  /** Records an added or modified object; returns the uids to process. */
  observe(obj: ObservedObject): string[] {
    const before = this.nodes.get(obj.uid);
    this.absent.delete(obj.uid);
    this.nodes.set(obj.uid, obj);
    const beforeOwners = before?.owners ?? [];
    for (const r of beforeOwners) if (!obj.owners.some((o) => o.uid === r.uid)) this.unlink(r.uid, obj.uid);
    for (const r of obj.owners) this.link(r.uid, obj.uid);
    const work = new Set<string>();
    const gcFinalizer = obj.finalizers.includes(ORPHAN_FINALIZER) || obj.finalizers.includes(FOREGROUND_FINALIZER);
    if (obj.deleting && gcFinalizer) work.add(obj.uid);
    // A new dependent, or changed references: check its owners (absent ones mean garbage).
    if (!obj.deleting && obj.owners.length > 0 && (!before || !sameOwners(before.owners, obj.owners))) work.add(obj.uid);
    // Owners waiting on this dependent may now finish (reference dropped, or it started terminating).
    if (before && (!sameOwners(before.owners, obj.owners) || before.deleting !== obj.deleting)) {
      for (const r of [...beforeOwners, ...obj.owners]) if (this.nodes.get(r.uid)?.deleting) work.add(r.uid);
    }
    // An owner that started terminating: its dependents may need work.
    if (obj.deleting && !before?.deleting) for (const d of this.dependents.get(obj.uid) ?? []) work.add(d);
    return [...work];
  }

  /** Records a deletion; returns the uids to process (its dependents and waiting owners). */
  forget(uid: string): string[] {
    const node = this.nodes.get(uid);
    this.nodes.delete(uid);
    this.absent.add(uid);
    if (this.absent.size > this.absentCapacity) this.absent.delete(this.absent.values().next().value as string);
    const work = new Set<string>(this.dependents.get(uid) ?? []);
    for (const r of node?.owners ?? []) {
      this.unlink(r.uid, uid);
      if (this.nodes.get(r.uid)?.deleting) work.add(r.uid);
    }
    return [...work];
  }

  private ownerState(uid: string): OwnerState {
    const owner = this.nodes.get(uid);
    if (owner) return owner.deleting && owner.finalizers.includes(FOREGROUND_FINALIZER) ? "waiting" : "solid";
    return this.absent.has(uid) ? "absent" : "unknown";
  }

  decide(uid: string): Decision {
    const node = this.nodes.get(uid);
    if (!node) return { action: "none" };
    const deps = [...(this.dependents.get(uid) ?? [])].map((d) => this.nodes.get(d)).filter((d): d is ObservedObject => !!d);
    if (node.deleting) {
      if (node.finalizers.includes(ORPHAN_FINALIZER)) return { action: "orphan", owner: node, dependents: deps };
      if (node.finalizers.includes(FOREGROUND_FINALIZER)) {
        const blocking = deps.filter((d) => d.owners.some((r) => r.uid === uid && r.blockOwnerDeletion));
        return { action: "foreground", owner: node, dependents: deps.filter((d) => !d.deleting).map((d) => d.uid), finalize: blocking.length === 0 };
      }
      return { action: "none" };
    }
    if (node.owners.length === 0) return { action: "none" };
    const owners = node.owners.map((ref) => ({ ref, state: this.ownerState(ref.uid) }));
    return { action: "attemptDelete", item: node, owners, hasDependents: deps.length > 0 };
  }
}
