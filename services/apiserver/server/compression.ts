/**
 * Response compression, as the platform's: gzip for get and list responses whose body is
 * larger than 128 KiB, when the client sends `Accept-Encoding: gzip` and the
 * APIResponseCompression gate is on; a smaller body goes out as the handler made it
 * (no `Vary` either: the platform adds it only to a compressed answer). Watches are never
 * compressed.
 * - A body whose size the handler knew (endpoints/answer-record.ts) is decided from that
 *   size, without reading it: a small GET answer costs a gzip client nothing more.
 * - Another body (a streamed list) is read ahead until it passes the threshold or ends.
 * Compressed bodies stream (CompressionStream, zlib's default level), pulled by the
 * client's pace.
 */
import { knownBodyBytes } from "../endpoints/answer-record.ts";

/** The platform's: bodies up to this size are not compressed. */
export const DEFAULT_COMPRESSION_THRESHOLD_BYTES = 128 * 1024;

function acceptsGzip(header: string | null): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().split(";");
    if (coding.trim().toLowerCase() !== "gzip") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  });
}

/** Whether a request's answer may be compressed at all (a get or list whose client accepts gzip): known before the answer is. */
export function mayCompress(req: Request, verb: string): boolean {
  return (verb === "get" || verb === "list") && acceptsGzip(req.headers.get("accept-encoding"));
}

/** The answer for the client: `res` itself when it is not compressed (at once, when the body's size is known), else its gzip form. */
export function maybeCompress(req: Request, res: Response, verb: string, thresholdBytes = DEFAULT_COMPRESSION_THRESHOLD_BYTES): Response | Promise<Response> {
  if (!mayCompress(req, verb)) return res;
  const known = knownBodyBytes(res);
  if (known !== undefined && known <= thresholdBytes) return res;
  if (res.headers.has("content-encoding") || !res.body) return res;
  return compressLarge(res, res.body, thresholdBytes);
}

/** A body of unknown size is read ahead until it passes the threshold (then compressed) or ends (then sent as it is). */
async function compressLarge(res: Response, body: ReadableStream<Uint8Array>, thresholdBytes: number): Promise<Response> {
  // Only what decides is read ahead: a streamed body stays streamed.
  const reader = body.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size <= thresholdBytes) {
    const r = await reader.read();
    if (r.done) {
      done = true;
      break;
    }
    head.push(r.value);
    size += r.value.length;
  }
  if (done) return new Response(Buffer.concat(head), { status: res.status, headers: res.headers });
  const headers = new Headers(res.headers);
  headers.append("vary", "Accept-Encoding");
  headers.set("content-encoding", "gzip");
  headers.delete("content-length");
  const rest = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        for (const chunk of head) controller.enqueue(chunk);
      },
      async pull(controller) {
        const r = await reader.read();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(rest.pipeThrough(new CompressionStream("gzip")), { status: res.status, headers });
}
