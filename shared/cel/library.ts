/**
 * Functions this module adds to every environment, and replacements for
 * built-ins of the evaluator that are unsafe on untrusted input:
 * - `matches` (method and global form) with RE2 semantics instead of JS RegExp;
 * - the platform's regex library: `<string>.find(<string>) string`,
 *   `<string>.findAll(<string>) list<string>`, `<string>.findAll(<string>, <int>) list<string>`;
 * - `duration(<string>)` accepts only text of the duration grammar, checked in
 *   linear time, before the evaluator's own parser (a backtracking JS RegExp
 *   that is polynomial on long digit runs) sees it;
 * - the platform's libraries in ./lib: quantity, IP and CIDR, URL, semver,
 *   named formats, lists, the string extensions, the authorizer, jsonpatch.escapeKey and sets.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { CelEvaluationError } from "./errors.ts";
import { registerAuthz } from "./lib/authz.ts";
import { registerFormat } from "./lib/format.ts";
import { registerJSONPatch } from "./lib/jsonpatch.ts";
import { registerLists } from "./lib/lists.ts";
import { registerNet } from "./lib/net.ts";
import { registerQuantity } from "./lib/quantity.ts";
import { registerSemver } from "./lib/semver.ts";
import { registerSets } from "./lib/sets.ts";
import { registerStrings } from "./lib/strings.ts";
import { registerURL } from "./lib/url.ts";
import { compileRegex, regexFind, regexFindAll, regexMatches } from "./regex.ts";

const sync = { async: false };

/** Clamps a CEL int limit to a JS number (negative: no limit). */
const limitOf = (n: bigint): number => (n < 0n ? -1 : n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n));

/** Registers the added functions on a fresh environment. */
export function registerLibrary(env: Environment): Environment {
  const platform = [registerQuantity, registerNet, registerURL, registerSemver, registerFormat, registerLists, registerStrings, registerAuthz, registerJSONPatch, registerSets];
  return platform
    .reduce((e, register) => register(e), env)
    .registerFunction("matches(string, string): bool", (s: string, re: string) => regexMatches(s, re), sync)
    .registerFunction("string.find(string): string", (s: string, re: string) => regexFind(s, re), sync)
    .registerFunction("string.findAll(string): list<string>", (s: string, re: string) => regexFindAll(s, re), sync)
    .registerFunction("string.findAll(string, int): list<string>", (s: string, re: string, n: bigint) => regexFindAll(s, re, limitOf(n)), sync);
}

/** A replacement for a built-in: evaluated operands (receiver first) and the built-in itself. */
export type Override = (values: readonly unknown[], builtin: () => unknown) => unknown;

const DURATION_GRAMMAR = "^[-+]?(?:[0-9]*(?:\\.[0-9]*)?(?:ns|us|µs|ms|s|m|h))+$";

/** Replacements keyed by `call|rcall:name:arity`. */
export const OVERRIDES: ReadonlyMap<string, Override> = new Map<string, Override>([
  [
    "rcall:matches:1",
    ([s, re]) => {
      if (typeof s !== "string" || typeof re !== "string") throw new CelEvaluationError("found no matching overload for 'matches'");
      return regexMatches(s, re);
    },
  ],
  [
    "call:duration:1",
    ([s], builtin) => {
      if (typeof s === "string" && !compileRegex(DURATION_GRAMMAR).testExact(s)) throw new CelEvaluationError("invalid duration");
      return builtin();
    },
  ],
]);
