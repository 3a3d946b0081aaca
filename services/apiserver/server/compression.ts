/**
 * Response compression: gzip for get and list responses above a threshold when the
 * client sends `Accept-Encoding: gzip` and the APIResponseCompression gate is on.
 * Watches and other streams are never compressed.
 */
import { gzipSync } from "node:zlib";

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

export async function maybeCompress(req: Request, res: Response, verb: string, thresholdBytes = DEFAULT_COMPRESSION_THRESHOLD_BYTES): Promise<Response> {
  if ((verb !== "get" && verb !== "list") || !acceptsGzip(req.headers.get("accept-encoding")) || res.headers.has("content-encoding") || !res.body) return res;
  const body = new Uint8Array(await res.arrayBuffer());
  const headers = new Headers(res.headers);
  headers.append("vary", "Accept-Encoding");
  if (body.byteLength < thresholdBytes) return new Response(body, { status: res.status, headers });
  headers.set("content-encoding", "gzip");
  headers.delete("content-length");
  return new Response(gzipSync(body), { status: res.status, headers });
}
