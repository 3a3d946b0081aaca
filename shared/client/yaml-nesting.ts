/**
 * A cheap bound on how deeply a YAML text nests flow collections (`[` and `{`),
 * checked before the text reaches the YAML parser, whose recursion would otherwise
 * overflow the stack (and spend hundreds of milliseconds doing so) on a few
 * thousand opening brackets.
 *
 * Contract: linear in the text's length, no allocation per character. Brackets inside
 * quoted scalars and comments are not counted; brackets inside plain scalars may be,
 * so the count is an upper bound of the real nesting. Block nesting needs growing
 * indentation (quadratic text) and is left to the parser.
 */

/** The largest flow nesting a client configuration file may have. */
export const MAX_FLOW_NESTING = 64;

/** The deepest flow-collection nesting of `text`, counting stops once it exceeds `limit`. */
export function flowNestingDepth(text: string, limit: number = MAX_FLOW_NESTING): number {
  let depth = 0;
  let deepest = 0;
  let quote = 0; // 0, or the char code of the open quote (" or ')
  let lineStart = true;
  let previous = 10;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (quote === 34 && c === 92) i++; // backslash escape in a double-quoted scalar
      else if (c === quote) {
        if (quote === 39 && text.charCodeAt(i + 1) === 39) i++; // '' inside single quotes
        else quote = 0;
      }
      previous = c;
      continue;
    }
    if (c === 35 && (lineStart || previous === 32 || previous === 9)) {
      // A comment runs to the end of the line.
      const end = text.indexOf("\n", i);
      if (end < 0) break;
      i = end;
      previous = 10;
      lineStart = true;
      continue;
    }
    if (c === 34 || c === 39) quote = c;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
    lineStart = c === 10;
    previous = c;
  }
  return deepest;
}
