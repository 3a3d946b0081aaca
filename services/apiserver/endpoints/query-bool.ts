/**
 * Boolean query parameters as the platform reads them. Two rules exist there:
 * - option fields (`watch`, `allowWatchBookmarks`, `sendInitialEvents`, `force`,
 *   `orphanDependents`, …) go through the query-parameter conversion: only `0` and a
 *   case-insensitive `false` are false; any other value, the empty one included, is true.
 *   Such a parameter never makes a request fail.
 * - `pretty` goes through Go's `strconv.ParseBool`: `1 t T TRUE true True` are true,
 *   `0 f F FALSE false False` false, anything else is ignored (not pretty).
 */

/** Unicode simple case folding of the letters that fold onto ASCII ones (ſ → s, K → k). */
function foldAscii(v: string): string {
  return v.replace(/\u017f/g, "s").replace(/\u212a/g, "k").toLowerCase();
}

/** An option field's value: undefined when the parameter is absent. */
export function queryBool(v: string | null | undefined): boolean | undefined {
  if (v === null || v === undefined) return undefined;
  return !(v === "0" || foldAscii(v) === "false");
}

const PARSE_BOOL_TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const PARSE_BOOL_FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** Go's `strconv.ParseBool`: the value, or undefined when the text is no boolean. */
export function parseGoBool(v: string): boolean | undefined {
  if (PARSE_BOOL_TRUE.has(v)) return true;
  if (PARSE_BOOL_FALSE.has(v)) return false;
  return undefined;
}

/**
 * Whether the output is indented: a non-empty `pretty` decides (an invalid value is not
 * pretty); without one, the user agents of browsers and command-line HTTP tools (`curl`,
 * `Wget`, `Mozilla/5.0`) get indented output, as on the platform.
 */
export function prettyParam(query: URLSearchParams, userAgent?: string | null): boolean {
  const v = query.get("pretty");
  if (v !== null && v !== "") return parseGoBool(v) === true;
  const ua = userAgent ?? "";
  return ua.startsWith("curl") || ua.startsWith("Wget") || ua.startsWith("Mozilla/5.0");
}
