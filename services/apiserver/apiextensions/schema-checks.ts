/**
 * Checks of a CRD version's schema that need more than its shape: every
 * `pattern` must compile as an RE2 regular expression (the syntax the schema
 * engine matches with). Walks the schema value, depth-guarded; never throws.
 */
import { RE2JS } from "re2js";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { isObject } from "../storage/object.ts";

const MAX_DEPTH = 256;

export function checkPatterns(schema: unknown, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (node: unknown, path: string, depth: number): void => {
    if (!isObject(node) || depth > MAX_DEPTH) return;
    if (typeof node.pattern === "string") {
      try {
        RE2JS.compile(node.pattern);
      } catch (err) {
        errs.push(fieldErrors.invalid(`${path}.pattern`, node.pattern, `must be a valid regular expression, but isn't: error parsing regexp: ${(err as Error).message}`));
      }
    }
    if (isObject(node.properties)) for (const [k, v] of Object.entries(node.properties)) walk(v, `${path}.properties[${k}]`, depth + 1);
    if (isObject(node.additionalProperties)) walk(node.additionalProperties, `${path}.additionalProperties`, depth + 1);
    if (isObject(node.items)) walk(node.items, `${path}.items`, depth + 1);
  };
  walk(schema, base, 0);
  return errs;
}
