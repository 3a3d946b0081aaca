/**
 * The first value of a form parameter as the platform agent's HTTP framework reads it:
 * an `application/x-www-form-urlencoded` body of a POST, PUT or PATCH first, then the URL
 * query; "" when neither names it. A body over 10 MiB (the framework's limit) is not
 * read as a form, and only the query counts.
 */
import type { IncomingMessage } from "node:http";

export const MAX_FORM_BODY_BYTES = 10 * 1024 * 1024;

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

async function formBody(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (!BODY_METHODS.has(req.method ?? "") || type !== "application/x-www-form-urlencoded") return undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    total += b.length;
    if (total > MAX_FORM_BODY_BYTES) return undefined;
    chunks.push(b);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

export async function formValue(req: IncomingMessage, query: URLSearchParams, key: string): Promise<string> {
  const body = await formBody(req);
  return body?.get(key) ?? query.get(key) ?? "";
}
