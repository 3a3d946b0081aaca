/**
 * What an encoded Response was made with, kept on it in one record:
 *
 * - Its header record starts with the request's answer headers recorded so far (a flat
 *   name/value list: the app's Audit-ID, priority and fairness' classification UIDs).
 *   The node adapter then writes the whole head with one writeHead and the node response
 *   keeps no header table; the server applies only the entries recorded after
 *   (server/filters/response-headers.ts). The handler's own headers win over a recorded
 *   one of the same name, as they do on the node response.
 * - Its body as the handler built it (a string or bytes), so that the server can decide
 *   from the body's size (compression) without reading the Response's body, which would
 *   turn the node adapter's lightweight Response into a full one and its body into a
 *   stream. A Response with a streamed or proxied body has no known size.
 */
const MADE_WITH = Symbol("madeWith");

interface MadeWith {
  /** How many entries of the answer-header list the Response's header record holds. */
  entries: number;
  body: string | Uint8Array | undefined;
}

type Marked = Response & { [MADE_WITH]?: MadeWith };

/** A header record holding the list's name/value pairs, then `own`. */
export function answerRecord(list: readonly string[] | undefined, own: Readonly<Record<string, string>>): Record<string, string> {
  const record: Record<string, string> = {};
  if (list) for (let i = 0; i + 1 < list.length; i += 2) record[list[i]] = list[i + 1];
  for (const name in own) record[name] = own[name];
  return record;
}

/**
 * Marks `response` as made with the first `entries` entries of the answer-header list
 * (answerRecord) and with `body`, when it is a string or bytes; returns it.
 */
export function markResponse(response: Response, entries: number, body: string | Uint8Array | ReadableStream<Uint8Array> | null): Response {
  const known = typeof body === "string" || body instanceof Uint8Array ? body : undefined;
  if (entries > 0 || known !== undefined) (response as Marked)[MADE_WITH] = { entries, body: known };
  return response;
}

/** How many entries of the answer-header list the Response already carries (0: none). */
export function answerHeadersIn(response: Response): number {
  return (response as Marked)[MADE_WITH]?.entries ?? 0;
}

/** The byte length of the body the Response was made with; undefined when not known. */
export function knownBodyBytes(response: Response): number | undefined {
  const body = (response as Marked)[MADE_WITH]?.body;
  if (body === undefined) return undefined;
  return typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.byteLength;
}
