/**
 * Message construction for mutating policies: `Object{spec: Object.spec{replicas: 3}}`
 * and `JSONPatch{op: 'add', path: '/x', value: 1}`. The evaluator has no
 * message types, so such literals are rewritten before parsing into map
 * literals with quoted field names (`{'spec': {'replicas': 3}}`); their values
 * evaluate to plain maps. Other text (strings, comments, map literals) is kept
 * as written. Positions after a rewritten type name shift left by its length.
 * Pure.
 */

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;

/** Type names whose literals are rewritten. */
function isStructType(chain: string): boolean {
  return chain === "JSONPatch" || chain === "Object" || chain.startsWith("Object.");
}

/** End offset of a string literal starting at `i` (with optional r/b prefixes already consumed by the caller). */
function stringEnd(src: string, i: number, raw: boolean): number {
  const q = src[i];
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < src.length) {
    if (!raw && src[j] === "\\") {
      j += 2;
      continue;
    }
    if (src.startsWith(close, j)) return j + close.length;
    if (!triple && src[j] === "\n") return j;
    j++;
  }
  return src.length;
}

/** Rewrites struct literals of Object and JSONPatch types into map literals. */
export function rewriteStructLiterals(src: string): string {
  let out = "";
  /** Open brackets: "(" "[" "map" "struct". */
  const stack: string[] = [];
  /** The last significant character emitted (not whitespace). */
  let last = "";
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      const end = src.indexOf("\n", i);
      const stop = end < 0 ? src.length : end;
      out += src.slice(i, stop);
      i = stop;
      continue;
    }
    if (/\s/.test(c)) {
      out += c;
      i++;
      continue;
    }
    const prefix = /^[rRbB]{1,2}(?=['"])/.exec(src.slice(i, i + 3));
    if (c === '"' || c === "'" || prefix) {
      const start = i + (prefix ? prefix[0].length : 0);
      const end = stringEnd(src, start, prefix !== null && /[rR]/.test(prefix[0]));
      out += src.slice(i, end);
      last = "'";
      i = end;
      continue;
    }
    IDENT.lastIndex = i;
    const id = IDENT.exec(src);
    if (id && !/[0-9]/.test(c)) {
      // a field name of a struct literal: `{name:` or `, name:`
      const top = stack[stack.length - 1];
      const after = /^\s*:/.test(src.slice(i + id[0].length));
      if (top === "struct" && (last === "{" || last === ",") && after) {
        out += `'${id[0]}'`;
        last = "'";
        i += id[0].length;
        continue;
      }
      // a type name chain followed by `{`, not itself a member selection
      if (last !== ".") {
        const m = /^[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*/.exec(src.slice(i));
        const chainText = m ? m[0] : id[0];
        const chain = chainText.replace(/\s+/g, "");
        const rest = src.slice(i + chainText.length);
        const brace = /^\s*\{/.exec(rest);
        if (brace && isStructType(chain)) {
          out += "{";
          stack.push("struct");
          last = "{";
          i += chainText.length + brace[0].length;
          continue;
        }
      }
      out += id[0];
      last = "a";
      i += id[0].length;
      continue;
    }
    if (c === "(" || c === "[") stack.push(c);
    else if (c === "{") stack.push("map");
    else if (c === ")" || c === "]" || c === "}") stack.pop();
    out += c;
    last = c;
    i++;
  }
  return out;
}
