/**
 * Sets of field paths as tries, in the style of structured-merge-diff's
 * `fieldpath.Set`: each node is a path element that may itself be a member of
 * the set (the path ends there) and may have children (longer paths go on).
 *
 * Invariant: a node exists only when it is a member or has a non-empty child
 * set, so `empty()` is a constant-time check and serialization never writes
 * dangling `{}` entries. Sets are values: the operations return new sets and
 * never share nodes with their inputs.
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

export class FieldSet {
  private readonly nodes = new Map<string, Node>();

  /** A set of the given paths (empty paths are ignored, as the platform does). */
  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** A set made of entries (entries that are neither members nor have children are dropped). */
  static fromEntries(entries: Iterable<SetEntry>): FieldSet {
    return FieldSet.build(entries, true);
  }

  /**
   * A set that takes `entries` as its nodes, without copying their children: only for
   * entries whose children sets were made for it and are used nowhere else (a decoder's
   * fresh sets). Entries with the same element are merged; empty entries are dropped.
   */
  static adoptEntries(entries: Iterable<SetEntry>): FieldSet {
    return FieldSet.build(entries, false);
  }

  private static build(entries: Iterable<SetEntry>, copyChildren: boolean): FieldSet {
    const s = new FieldSet();
    for (const e of entries) {
      const key = serializeElement(e.pe);
      const have = s.nodes.get(key);
      if (have) {
        have.member ||= e.member;
        have.children = have.children.union(e.children);
      } else s.put(e.pe, e.member, copyChildren ? e.children.clone() : e.children);
    }
    return s;
  }

  /** Adds a path. Only for sets the caller is building; sets handed out are treated as values. */
  insert(path: Path): void {
    if (path.length === 0) return;
    const key = serializeElement(path[0]);
    let node = this.nodes.get(key);
    if (!node) {
      node = { pe: path[0], member: false, children: new FieldSet() };
      this.nodes.set(key, node);
    }
    if (path.length === 1) node.member = true;
    else node.children.insert(path.slice(1));
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
    return this.node(pe)?.children.clone() ?? new FieldSet();
  }

  /** The nodes of the top level in the platform's element order. */
  entries(): SetEntry[] {
    return [...this.nodes.values()].sort((a, b) => compareElements(a.pe, b.pe));
  }

  /** The nodes of the top level in no particular order (for walks whose result does not depend on it). */
  unorderedEntries(): SetEntry[] {
    return [...this.nodes.values()];
  }

  clone(): FieldSet {
    const out = new FieldSet();
    for (const [k, n] of this.nodes) out.nodes.set(k, { pe: n.pe, member: n.member, children: n.children.clone() });
    return out;
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    for (const [k, n] of other.nodes) {
      const mine = out.nodes.get(k);
      if (!mine) out.nodes.set(k, { pe: n.pe, member: n.member, children: n.children.clone() });
      else {
        mine.member ||= n.member;
        mine.children = mine.children.union(n.children);
      }
    }
    return out;
  }

  /** Members of this set that are not members of `other` (prefixes do not matter). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, n] of this.nodes) {
      const o = other.nodes.get(k);
      if (!o) out.nodes.set(k, { pe: n.pe, member: n.member, children: n.children.clone() });
      else out.put(n.pe, n.member && !o.member, n.children.difference(o.children));
    }
    return out;
  }

  /** Members of this set that are neither members of `other` nor below one of its members. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, n] of this.nodes) {
      const o = other.nodes.get(k);
      if (!o) out.nodes.set(k, { pe: n.pe, member: n.member, children: n.children.clone() });
      else if (!o.member) out.put(n.pe, n.member, n.children.recursiveDifference(o.children));
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, n] of this.nodes) {
      const o = other.nodes.get(k);
      if (o) out.put(n.pe, n.member && o.member, n.children.intersection(o.children));
    }
    return out;
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
