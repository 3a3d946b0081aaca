/**
 * A boolean query parameter of a subresource's options (PodLogOptions,
 * PodExecOptions…) as the platform parses it: absent or empty is false; the
 * spellings Go's strconv.ParseBool accepts; anything else is a 400 with its message.
 */
import { badRequest } from "../../../shared/api/status.ts";

const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE = new Set(["0", "f", "F", "false", "FALSE", "False"]);

export function queryBool(q: URLSearchParams, key: string): boolean {
  const v = q.get(key);
  if (v === null || v === "") return false;
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}
