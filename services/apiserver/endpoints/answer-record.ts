/**
 * A handler's header record that starts with the request's answer headers recorded so
 * far (a flat name/value list: the app's Audit-ID, priority and fairness' classification
 * UIDs). The Response made with it carries them in its one record, so the node adapter
 * writes the whole head with one writeHead and the node response keeps no header table;
 * the Response is marked with how many list entries it holds, and the server applies
 * only those recorded after (server/filters/response-headers.ts). The handler's own
 * headers win over a recorded one of the same name, as they do on the node response.
 */
const APPLIED = Symbol("answerHeadersApplied");

type Marked = Response & { [APPLIED]?: number };

/** A header record holding the list's name/value pairs, then `own`. */
export function answerRecord(list: readonly string[] | undefined, own: Readonly<Record<string, string>>): Record<string, string> {
  const record: Record<string, string> = {};
  if (list) for (let i = 0; i + 1 < list.length; i += 2) record[list[i]] = list[i + 1];
  for (const name in own) record[name] = own[name];
  return record;
}

/** Marks `response` as made with the first `entries` entries of the list (answerRecord); returns it. */
export function markAnswerHeaders(response: Response, entries: number): Response {
  if (entries > 0) (response as Marked)[APPLIED] = entries;
  return response;
}

/** How many entries of the answer-header list the Response already carries (0: none). */
export function answerHeadersIn(response: Response): number {
  return (response as Marked)[APPLIED] ?? 0;
}
