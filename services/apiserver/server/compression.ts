/**
 * Response compression: gzip for get and list responses above a threshold when the
 * client sends `Accept-Encoding: gzip` and the APIResponseCompression gate is on.
 * Watches are never compressed. Bodies are compressed as they stream (CompressionStream,
 * zlib's default level, as gzipSync), pulled by the client's pace.
 */

export const DEFAULT_COMPRESSION_THRESHOLD_BYTES = 1024;

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

export async function maybeCompress(req: Request, res: Response, verb: string, thresholdBytes = DEFAULT_COMPRESSION_THRESHOLD_BYTES): Promise<Response> {
  if (!mayCompress(req, verb) || res.headers.has("content-encoding") || !res.body) return res;
  const headers = new Headers(res.headers);
  headers.append("vary", "Accept-Encoding");
  // Only the first `thresholdBytes` are read ahead: a streamed body stays streamed.
  const reader = res.body.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < thresholdBytes) {
    const r = await reader.read();
    if (r.done) {
      done = true;
      break;
    }
    head.push(r.value);
    size += r.value.length;
  }
  if (done) return new Response(Buffer.concat(head), { status: res.status, headers });
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
