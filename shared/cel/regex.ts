/**
 * Regular expressions with RE2 semantics and linear-time matching (re2js, a
 * pure JavaScript port of RE2): no backreferences or lookaround, and no
 * catastrophic backtracking whatever the pattern or input. Compiled patterns
 * are cached (bounded); an invalid pattern is an evaluation error that does not
 * quote the pattern, since it may come from the activation.
 */
import { RE2JS } from "re2js";
import { CelEvaluationError } from "./errors.ts";

const CACHE_LIMIT = 256;
/** Longer patterns are compiled per call and not kept, so the cache stays small. */
const CACHE_PATTERN_LIMIT = 1024;
const cache = new Map<string, RE2JS | CelEvaluationError>();

/** The compiled pattern; throws CelEvaluationError for invalid syntax. */
export function compileRegex(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch {
      re = new CelEvaluationError("invalid regular expression");
    }
    if (pattern.length <= CACHE_PATTERN_LIMIT) {
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
      cache.set(pattern, re);
    }
  }
  if (re instanceof CelEvaluationError) throw re;
  return re;
}

/** True when the pattern matches any substring of the input (CEL `matches`). */
export function regexMatches(input: string, pattern: string): boolean {
  return compileRegex(pattern).test(input);
}

/** The first match, or "" when there is none (`find`). */
export function regexFind(input: string, pattern: string): string {
  const m = compileRegex(pattern).matcher(input);
  return m.find(0) ? input.slice(m.start(), m.end()) : "";
}

/** UTF-16 units of the code point at `i` (1 or 2). */
const width = (s: string, i: number): number => {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
};

/**
 * Successive non-overlapping matches, at most `limit` of them (all when
 * negative, none when 0); an empty match right after a match is skipped.
 */
export function regexFindAll(input: string, pattern: string, limit = -1): string[] {
  const out: string[] = [];
  if (limit === 0) return out;
  const m = compileRegex(pattern).matcher(input);
  let pos = 0;
  let prevEnd = -1;
  while (pos <= input.length && (limit < 0 || out.length < limit) && m.find(pos)) {
    const start = m.start();
    const end = m.end();
    let accept = true;
    if (end === pos) {
      if (start === prevEnd) accept = false;
      pos += pos < input.length ? width(input, pos) : 1;
    } else pos = end;
    prevEnd = end;
    if (accept) out.push(input.slice(start, end));
  }
  return out;
}
