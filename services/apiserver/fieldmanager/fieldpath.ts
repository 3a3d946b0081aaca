/**
 * Sets of field paths as tries, in the style of structured-merge-diff's
 * `fieldpath.Set`: each node is a path element that may itself be a member of
 * the set (the path ends there) and may have children (longer paths go on).
 *
 * Invariant: a node exists only when it is a member or has a non-empty child
 * set, so `empty()` is a constant-time check and serialization never writes
 * dangling `{}` entries. Sets are immutable values once built: the operations
 * never change their inputs, and return an input itself, or share its unchanged
 * subtrees, wherever the result equals it there (a write that changes one field
 * allocates along that field's path only). Paths are added only through a
 * `FieldSet.builder()`, whose set nobody else holds until it is built.
 */
import { compareElements, pathString, serializeElement, type Path, type PathElement } from "./path-element.ts";

export * from "./path-element.ts";
export { fromFieldsV1, toFieldsV1, FieldsV1Error } from "./fields-v1.ts";

export interface SetEntry {
  readonly pe: PathElement;
  readonly member: boolean;
  readonly children: FieldSet;
}

interface Node {
  pe: PathElement;
  member: boolean;
  children: FieldSet;
}

/** Adds paths to a set under construction; `build` hands the set out, after which `add` throws. */
export interface FieldSetBuilder {
  /** Adds a path (an empty path is ignored, as the platform does). */
  add(path: Path): void;
  build(): FieldSet;
}

export class FieldSet {
  private readonly nodes = new Map<string, Node>();

  /** A set of the given paths (empty paths are ignored, as the platform does). */
  static of(...paths: Path[]): FieldSet {
    const b = FieldSet.builder();
    for (const p of paths) b.add(p);
    return b.build();
  }

  static builder(): FieldSetBuilder {
    const s = new FieldSet();
    let built = false;
    return {
      add(path) {
        if (built) throw new Error("FieldSet builder: add after build");
        s.insertOwned(path);
      },
      build() {
        built = true;
        return s;
      },
    };
  }

  /** A set made of entries (entries that are neither members nor have children are dropped); it shares their children sets. */
  static fromEntries(entries: Iterable<SetEntry>): FieldSet {
    const s = new FieldSet();
    for (const e of entries) {
      const key = serializeElement(e.pe);
      const have = s.nodes.get(key);
      if (have) s.nodes.set(key, { pe: have.pe, member: have.member || e.member, children: have.children.union(e.children) });
      else s.put(e.pe, e.member, e.children);
    }
    return s;
  }

  /** Adds a path in place: only on a builder's set, whose nodes and children it made itself. */
  private insertOwned(path: Path, from = 0): void {
    if (path.length <= from) return;
    const key = serializeElement(path[from]);
    let node = this.nodes.get(key);
    if (!node) {
      node = { pe: path[from], member: false, children: new FieldSet() };
      this.nodes.set(key, node);
    }
    if (path.length === from + 1) node.member = true;
    else node.children.insertOwned(path, from + 1);
  }

  private put(pe: PathElement, member: boolean, children: FieldSet): void {
    if (!member && children.empty()) return;
    this.nodes.set(serializeElement(pe), { pe, member, children });
  }

  private node(pe: PathElement): Node | undefined {
    return this.nodes.get(serializeElement(pe));
  }

  empty(): boolean {
    return this.nodes.size === 0;
  }

  /** The path is a member of the set. */
  has(path: Path): boolean {
    if (path.length === 0) return false;
    const node = this.node(path[0]);
    if (!node) return false;
    return path.length === 1 ? node.member : node.children.has(path.slice(1));
  }

  /** The paths below `pe`, without the `pe` prefix. */
  withPrefix(pe: PathElement): FieldSet {
    return this.node(pe)?.children ?? new FieldSet();
  }

  /** The nodes of the top level in the platform's element order. */
  entries(): SetEntry[] {
    return [...this.nodes.values()].sort((a, b) => compareElements(a.pe, b.pe));
  }

  /** The nodes of the top level in no particular order (for walks whose result does not depend on it). */
  unorderedEntries(): SetEntry[] {
    return [...this.nodes.values()];
  }

  /** A node of this set changed to `member` and `children`: the node itself when both are its own, else a new node. */
  private static changed(n: Node, member: boolean, children: FieldSet): Node | undefined {
    if (member === n.member && children === n.children) return n;
    return member || !children.empty() ? { pe: n.pe, member, children } : undefined;
  }

  /** The set made by mapping each node (undefined drops it); `this` when every node maps to itself. */
  private mapNodes(f: (key: string, n: Node) => Node | undefined): FieldSet {
    let out: FieldSet | undefined;
    let i = 0;
    for (const [k, n] of this.nodes) {
      const m = f(k, n);
      if (m !== n && out === undefined) {
        out = new FieldSet();
        let j = 0;
        for (const [k2, n2] of this.nodes) {
          if (j++ >= i) break;
          out.nodes.set(k2, n2);
        }
      }
      if (out !== undefined && m !== undefined) out.nodes.set(k, m);
      i++;
    }
    return out ?? this;
  }

  union(other: FieldSet): FieldSet {
    if (other === this || other.empty()) return this;
    if (this.empty()) return other;
    let out: FieldSet | undefined;
    for (const [k, n] of other.nodes) {
      const mine = (out ?? this).nodes.get(k);
      const next = mine ? FieldSet.changed(mine, mine.member || n.member, mine.children.union(n.children)) : n;
      if (next === mine) continue;
      if (out === undefined) {
        out = new FieldSet();
        for (const [k2, n2] of this.nodes) out.nodes.set(k2, n2);
      }
      out.nodes.set(k, next!);
    }
    return out ?? this;
  }

  /** Members of this set that are not members of `other` (prefixes do not matter). */
  difference(other: FieldSet): FieldSet {
    if (other.empty() || this.empty()) return this;
    return this.mapNodes((k, n) => {
      const o = other.nodes.get(k);
      return o ? FieldSet.changed(n, n.member && !o.member, n.children.difference(o.children)) : n;
    });
  }

  /** Members of this set that are neither members of `other` nor below one of its members. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.empty() || this.empty()) return this;
    return this.mapNodes((k, n) => {
      const o = other.nodes.get(k);
      if (!o) return n;
      return o.member ? undefined : FieldSet.changed(n, n.member, n.children.recursiveDifference(o.children));
    });
  }

  intersection(other: FieldSet): FieldSet {
    if (other === this || this.empty()) return this;
    if (other.empty()) return other;
    return this.mapNodes((k, n) => {
      const o = other.nodes.get(k);
      return o ? FieldSet.changed(n, n.member && o.member, n.children.intersection(o.children)) : undefined;
    });
  }

  equals(other: FieldSet): boolean {
    if (this === other) return true;
    if (this.nodes.size !== other.nodes.size) return false;
    for (const [k, n] of this.nodes) {
      const o = other.nodes.get(k);
      if (!o || o.member !== n.member || !n.children.equals(o.children)) return false;
    }
    return true;
  }

  /** Member paths in the platform's iteration order: a level's members first, then each child's paths. */
  paths(prefix: Path = []): Path[] {
    const entries = this.entries();
    const out: Path[] = [];
    for (const e of entries) if (e.member) out.push([...prefix, e.pe]);
    for (const e of entries) out.push(...e.children.paths([...prefix, e.pe]));
    return out;
  }

  size(): number {
    let n = 0;
    for (const node of this.nodes.values()) n += (node.member ? 1 : 0) + node.children.size();
    return n;
  }

  toString(): string {
    return this.paths().map(pathString).join("\n");
  }
}
