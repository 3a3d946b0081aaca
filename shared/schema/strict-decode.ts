/**
 * Strict decoding of request bodies: JSON (strict-json.ts) and YAML. Both
 * report duplicate fields with their paths at any depth, keep the last value
 * of a duplicated key, keep integers beyond 2^53 exact (bigint), bound the
 * nesting depth, and throw DecodeError with a position on malformed input.
 *
 * YAML contract: one document; YAML 1.2 core schema plus merge keys
 * (`<<: *anchor`, explicit keys override merged ones); alias expansion is
 * limited (`maxAliasCount`, default 100) against "billion laughs" bodies;
 * non-finite numbers (`.inf`, `.nan`) are rejected as JSON cannot carry them.
 * The duplicate wording for YAML is the platform's: `line 9: key "foo" already set in map`.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import { childPath, indexPath } from "./path.ts";
import { DecodeError, DEFAULT_MAX_DEPTH, type DecodeOptions, type DecodeResult } from "./strict-json.ts";
import { isObject } from "./values.ts";

export { decodeJsonStrict, duplicateFieldMessage, DecodeError, DEFAULT_MAX_DEPTH, type DecodeOptions, type DecodeResult } from "./strict-json.ts";

export interface YamlDecodeOptions extends DecodeOptions {
  /** Most alias expansions allowed in one document (default 100). */
  maxAliasCount?: number;
}

export const DEFAULT_MAX_ALIAS_COUNT = 100;
const MERGE_KEY = "<<";

/** Parses one YAML document strictly; throws DecodeError. */
export function decodeYamlStrict(text: string, opts: YamlDecodeOptions = {}): DecodeResult {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxAliasCount = opts.maxAliasCount ?? DEFAULT_MAX_ALIAS_COUNT;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, intAsBigInt: true, merge: true, lineCounter, prettyErrors: false });
  const first = doc.errors[0];
  if (first) throw new DecodeError(first.message, text, first.pos[0]);

  const duplicates: string[] = [];
  const messages: string[] = [];
  // Walk the syntax tree (aliases are not followed: their target is checked where it is written).
  const pending: Array<{ node: unknown; path: string; depth: number }> = [{ node: doc.contents, path: "", depth: 0 }];
  while (pending.length) {
    const { node, path, depth } = pending.pop() as { node: unknown; path: string; depth: number };
    if (isMap(node) || isSeq(node)) {
      if (depth >= maxDepth) throw new DecodeError(`exceeded max depth of ${maxDepth} nesting levels`, text, (node as Node).range?.[0] ?? 0);
    }
    if (isMap(node)) {
      const seen = new Set<string>();
      const children: typeof pending = [];
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const keyPath = childPath(path, key);
        if (key === MERGE_KEY && isScalar(pair.key) && isAlias(pair.value)) continue; // `<<: *anchor` merges, never duplicates
        if (seen.has(key)) {
          duplicates.push(keyPath);
          const offset = isScalar(pair.key) ? (pair.key.range?.[0] ?? 0) : 0;
          messages.push(`line ${lineCounter.linePos(offset).line}: key ${JSON.stringify(key)} already set in map`);
        }
        seen.add(key);
        children.push({ node: pair.value, path: keyPath, depth: depth + 1 });
      }
      pending.push(...children.reverse());
    } else if (isSeq(node)) {
      const children = node.items.map((item, i) => ({ node: item, path: indexPath(path, i), depth: depth + 1 }));
      pending.push(...children.reverse());
    } else if (isAlias(node)) {
      continue;
    }
  }

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount });
  } catch (err) {
    throw new DecodeError(err instanceof Error ? err.message : String(err), text, 0);
  }
  return { value: normalize(value, opts.bigIntegers ?? "bigint", text), duplicates, messages };
}

/** Safe-range bigints become numbers; non-finite numbers are rejected; keys stay own properties. */
function normalize(v: unknown, big: "bigint" | "number", text: string): unknown {
  if (typeof v === "bigint") {
    const n = Number(v);
    return Number.isSafeInteger(n) || big === "number" ? n : v;
  }
  if (typeof v === "number" && !Number.isFinite(v)) throw new DecodeError(`unsupported value: ${v}`, text, 0);
  if (Array.isArray(v)) return v.map((x) => normalize(x, big, text));
  if (isObject(v)) {
    for (const k of Object.keys(v)) v[k] = normalize(v[k], big, text);
    return v;
  }
  return v;
}
