/**
 * Reads a request body under an explicit size limit (413 beyond it) and decodes
 * JSON or YAML with duplicate-field detection and a nesting limit.
 */
import { badRequest, requestEntityTooLarge, unsupportedMediaType } from "../../../shared/api/status.ts";
import { decodeJsonStrict, decodeYamlStrict } from "../../../shared/schema/index.ts";

export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Bodies beyond the limit are still drained up to this size so the client reads the 413 instead of a reset. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, seen: number): Promise<void> {
  let total = seen;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    total += value.byteLength;
    if (total > DRAIN_LIMIT_BYTES) {
      await reader.cancel().catch(() => {});
      return;
    }
  }
}

/**
 * The body of `req`, at most `maxBytes` (413 beyond). A body of a declared length within
 * the limit is read in one piece (the HTTP parser holds it to that length), without the
 * web stream `req.body` makes the server build; a body of unknown length is counted as
 * it streams in.
 */
export async function readBody(req: Request, maxBytes: number): Promise<Uint8Array> {
  const length = req.headers.get("content-length");
  if (length !== null && /^\d+$/.test(length) && Number(length) <= maxBytes && !req.headers.has("transfer-encoding")) {
    return length === "0" ? new Uint8Array() : new Uint8Array(await req.arrayBuffer());
  }
  if (!req.body) return new Uint8Array();
  const declared = Number(length ?? "");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await drain(req.body.getReader(), 0);
    throw tooLarge(maxBytes);
  }
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await drain(reader, total);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

function tooLarge(maxBytes: number) {
  return requestEntityTooLarge(`the request body is larger than the limit of ${maxBytes} bytes`);
}

export interface DecodedBody {
  value: unknown;
  /** Paths of duplicate fields found while decoding. */
  duplicates: string[];
}

export type BodyFormat = "json" | "yaml";

/** The body format of a Content-Type (parameters ignored), or a 415. */
export function bodyFormat(contentType: string | null | undefined, accepted: Record<string, BodyFormat>): BodyFormat {
  const base = (contentType ?? "application/json").split(";")[0].trim().toLowerCase();
  const fmt = accepted[base];
  if (!fmt) throw unsupportedMediaType(Object.keys(accepted));
  return fmt;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

export function decodeBody(bytes: Uint8Array, format: BodyFormat): DecodedBody {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw badRequest("the request body is not valid UTF-8");
  }
  if (text.trim() === "") throw badRequest("the request body is empty");
  try {
    const res = format === "json" ? decodeJsonStrict(text) : decodeYamlStrict(text);
    return { value: res.value, duplicates: res.duplicates };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw badRequest(`${format === "json" ? "json" : "yaml"}: ${message}`);
  }
}
