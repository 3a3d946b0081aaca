/**
 * The body of a response as its handler built it, kept on the Response (a string or
 * bytes): lets the server decide from the body's size (compression) without reading
 * the Response's body, which would turn the node adapter's lightweight Response into a
 * full one and its body into a stream. A Response without one (a stream, a proxied
 * answer) has no known size.
 */
const KNOWN_BODY = Symbol("knownBody");

type WithKnownBody = Response & { [KNOWN_BODY]?: string | Uint8Array };

/** Keeps `body` (the one the Response was made with) on the Response; returns it. */
export function withKnownBody(response: Response, body: string | Uint8Array): Response {
  (response as WithKnownBody)[KNOWN_BODY] = body;
  return response;
}

/** The byte length of the body the Response was made with; undefined when not known. */
export function knownBodyBytes(response: Response): number | undefined {
  const body = (response as WithKnownBody)[KNOWN_BODY];
  if (body === undefined) return undefined;
  return typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.byteLength;
}
