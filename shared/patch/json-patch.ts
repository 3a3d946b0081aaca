/**
 * RFC 6902 JSON patch under the platform's bounds, shared by every place that
 * applies one (the PATCH handler, admission webhook answers): at most 10,000
 * operations, `copy` growth counted against a byte budget, operations applied one
 * by one on a single copy of the document, yielding to the event loop between
 * slices. A failing operation leaves the input untouched and throws a
 * JsonPatchError whose message names the operation and path, never a value;
 * callers turn it into the Status their protocol answers with.
 */
import { JSON_PATCH_MAX_COPY_BYTES, jsonSizeUpTo, MAX_JSON_PATCH_OPERATIONS, WorkSlicer } from "./limits.ts";
import { cloneValue } from "../schema/values.ts";

/**
 * Why a patch was refused: `malformed` (not an array of operations), `too-many-operations`
 * (more than the operation cap), `copy-limit` (copy growth over budget), `apply` (an
 * operation does not apply to the document).
 */
export type JsonPatchErrorKind = "malformed" | "too-many-operations" | "copy-limit" | "apply";

/** The one error the engine throws; `message` is safe to show (no document values). */
export class JsonPatchError extends Error {
  constructor(
    readonly kind: JsonPatchErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "JsonPatchError";
  }
}

function patchApplyError(detail: string): JsonPatchError {
  return new JsonPatchError("apply", detail);
}

function copyLimitExceeded(accumulated: number, limit: number): JsonPatchError {
  return new JsonPatchError("copy-limit", `Unable to complete the copy, the accumulated size increase of copy is ${accumulated}, exceeding the limit ${limit}`);
}

export interface JsonPatchLimits {
  maxOperations?: number;
  maxCopyBytes?: number;
}

type Container = Record<string, unknown> | unknown[];

const MAX_PATH_IN_MESSAGE = 256;

function shown(path: string): string {
  return path.length > MAX_PATH_IN_MESSAGE ? `${path.slice(0, MAX_PATH_IN_MESSAGE)}...` : path;
}

function isContainer(v: unknown): v is Container {
  return typeof v === "object" && v !== null;
}

function parsePointer(path: string, what: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw patchApplyError(`${what}: invalid JSON pointer "${shown(path)}"`);
  return path
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function arrayIndex(token: string, length: number, allowEnd: boolean): number | undefined {
  if (allowEnd && token === "-") return length;
  if (!/^(0|[1-9][0-9]{0,9})$/.test(token)) return undefined;
  const i = Number(token);
  return i < length || (allowEnd && i === length) ? i : undefined;
}

function child(c: Container, token: string): unknown {
  if (Array.isArray(c)) {
    const i = arrayIndex(token, c.length, false);
    return i === undefined ? undefined : c[i];
  }
  return Object.hasOwn(c, token) ? c[token] : undefined;
}

/** Sets a member; `__proto__` becomes an ordinary member instead of changing the prototype. */
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/** The parent container of a pointer, or undefined when a step is missing. */
function parentOf(root: unknown, tokens: string[]): Container | undefined {
  let cur: unknown = root;
  for (let i = 0; i < tokens.length - 1; i++) {
    if (!isContainer(cur)) return undefined;
    cur = child(cur, tokens[i]);
  }
  return isContainer(cur) ? cur : undefined;
}

function get(root: unknown, tokens: string[]): unknown {
  let cur: unknown = root;
  for (const t of tokens) {
    if (!isContainer(cur)) return undefined;
    cur = child(cur, t);
  }
  return cur;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  return keys.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

/** Applies the patch's operations to a working copy; `root` is replaced by whole-document ops. */
class Working {
  copied = 0;

  constructor(
    public root: unknown,
    private readonly maxCopyBytes: number,
  ) {}

  add(path: string, value: unknown): void {
    const tokens = parsePointer(path, "add operation does not apply");
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const parent = parentOf(this.root, tokens);
    const last = tokens[tokens.length - 1];
    const missing = () => patchApplyError(`add operation does not apply: doc is missing path: "${shown(path)}": missing value`);
    if (!parent) throw missing();
    if (Array.isArray(parent)) {
      const i = arrayIndex(last, parent.length, true);
      if (i === undefined) throw patchApplyError(`add operation does not apply: unable to access invalid index at "${shown(path)}"`);
      parent.splice(i, 0, value);
    } else setOwn(parent, last, value);
  }

  remove(path: string): unknown {
    const tokens = parsePointer(path, "remove operation does not apply");
    const missing = () => patchApplyError(`remove operation does not apply: doc is missing path: "${shown(path)}": missing value`);
    if (tokens.length === 0) throw missing();
    const parent = parentOf(this.root, tokens);
    const last = tokens[tokens.length - 1];
    if (!parent || child(parent, last) === undefined) throw missing();
    if (Array.isArray(parent)) return parent.splice(arrayIndex(last, parent.length, false) as number, 1)[0];
    const old = parent[last];
    delete parent[last];
    return old;
  }

  replace(path: string, value: unknown): void {
    const tokens = parsePointer(path, "replace operation does not apply");
    if (tokens.length === 0) {
      this.root = value;
      return;
    }
    const parent = parentOf(this.root, tokens);
    const last = tokens[tokens.length - 1];
    if (!parent || child(parent, last) === undefined) throw patchApplyError(`replace operation does not apply: doc is missing key: ${shown(path)}: missing value`);
    if (Array.isArray(parent)) parent[arrayIndex(last, parent.length, false) as number] = value;
    else setOwn(parent, last, value);
  }

  move(from: string, path: string): void {
    if (from === path) {
      if (get(this.root, parsePointer(from, "move operation does not apply")) === undefined) throw patchApplyError(`move operation does not apply: doc is missing from path: ${shown(from)}`);
      return;
    }
    if (path.startsWith(`${from}/`)) throw patchApplyError(`move operation does not apply: cannot move "${shown(from)}" into its own child`);
    if (get(this.root, parsePointer(from, "move operation does not apply")) === undefined) throw patchApplyError(`move operation does not apply: doc is missing from path: ${shown(from)}`);
    this.add(path, this.remove(from));
  }

  copy(from: string, path: string): void {
    const value = get(this.root, parsePointer(from, "copy operation does not apply"));
    if (value === undefined) throw patchApplyError(`copy operation does not apply: doc is missing from path: "${shown(from)}": missing value`);
    const remaining = this.maxCopyBytes - this.copied;
    this.copied += jsonSizeUpTo(value, remaining);
    if (this.copied > this.maxCopyBytes) throw copyLimitExceeded(this.copied, this.maxCopyBytes);
    this.add(path, cloneValue(value));
  }

  test(path: string, value: unknown): void {
    const actual = get(this.root, parsePointer(path, "test operation does not apply"));
    if (actual === undefined || !deepEqual(actual, value)) throw patchApplyError(`testing value ${shown(path)} failed: test failed`);
  }
}

function field(op: Record<string, unknown>, name: "path" | "from", kind: string): string {
  const v = op[name];
  if (typeof v !== "string") throw patchApplyError(`${kind} operation: missing or invalid "${name}"`);
  return v;
}

function value(op: Record<string, unknown>, kind: string): unknown {
  if (!Object.hasOwn(op, "value")) throw patchApplyError(`${kind} operation: missing "value"`);
  return op.value;
}

function applyOne(w: Working, raw: unknown, index: number): void {
  if (!isContainer(raw) || Array.isArray(raw)) throw patchApplyError(`operation ${index} is not an object`);
  const op = raw as Record<string, unknown>;
  const kind = op.op;
  switch (kind) {
    case "add":
      return w.add(field(op, "path", kind), value(op, kind));
    case "remove":
      w.remove(field(op, "path", kind));
      return;
    case "replace":
      return w.replace(field(op, "path", kind), value(op, kind));
    case "move":
      return w.move(field(op, "from", kind), field(op, "path", kind));
    case "copy":
      return w.copy(field(op, "from", kind), field(op, "path", kind));
    case "test":
      return w.test(field(op, "path", kind), value(op, kind));
    default:
      throw patchApplyError(typeof kind === "string" && kind.length <= 16 ? `Unexpected kind: ${kind}` : "Unexpected kind");
  }
}

/** Validates the shape and size of a decoded JSON patch before any work. */
export function checkJsonPatch(ops: unknown, limits: JsonPatchLimits = {}): unknown[] {
  if (!Array.isArray(ops)) throw new JsonPatchError("malformed", "the JSON patch must be an array of operations");
  const max = limits.maxOperations ?? MAX_JSON_PATCH_OPERATIONS;
  if (ops.length > max) throw new JsonPatchError("too-many-operations", `The allowed maximum operations in a JSON patch is ${max}, got ${ops.length}`);
  return ops;
}

/**
 * Applies a decoded JSON patch to a copy of `doc` (the input and the patch's values
 * may be shared with the result; `doc` itself is never modified).
 */
export async function applyJsonPatchBounded(doc: unknown, ops: unknown, limits: JsonPatchLimits = {}): Promise<unknown> {
  const list = checkJsonPatch(ops, limits);
  const w = new Working(cloneValue(doc), limits.maxCopyBytes ?? JSON_PATCH_MAX_COPY_BYTES);
  const slicer = new WorkSlicer();
  for (let i = 0; i < list.length; i++) {
    applyOne(w, list[i], i);
    await slicer.maybeYield();
  }
  return w.root;
}
