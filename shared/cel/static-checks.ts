/**
 * Checks done once at compile time on the parsed expression: a regular
 * expression given as a string literal to `matches`, `find` or `findAll` must
 * be valid RE2 syntax, so a broken pattern is a compile error and not a
 * failure of every evaluation.
 */
import type { ASTNode } from "@marcbachmann/cel-js";
import { astNodes } from "./ast-walk.ts";
import { CelCompileError, position } from "./errors.ts";
import { compileRegex } from "./regex.ts";

const REGEX_FUNCTIONS = new Set(["matches", "find", "findAll"]);

/** The pattern argument of a regex call, when the call is one. */
function patternArg(node: ASTNode): ASTNode | undefined {
  if (node.op === "rcall" && REGEX_FUNCTIONS.has(node.args[0])) return node.args[2][0];
  if (node.op === "call" && node.args[0] === "matches" && node.args[1].length === 2) return node.args[1][1];
  return undefined;
}

/** Throws CelCompileError for the first invalid literal regex in the expression. */
export function checkLiteralRegexes(root: ASTNode, source: string): void {
  for (const node of astNodes(root)) {
    const pattern = patternArg(node);
    if (pattern?.op === "value" && typeof pattern.args === "string") {
      try {
        compileRegex(pattern.args);
      } catch {
        throw new CelCompileError(`invalid regular expression ${JSON.stringify(pattern.args)} at ${position(source, pattern.start)}`);
      }
    }
  }
}
