/**
 * Response bodies in the negotiated encoding. JSON is compact unless `pretty`;
 * YAML uses the `yaml` package; protobuf uses the envelope and the kind's
 * schema-driven messages (objects and lists of the endpoint's kind); CBOR (behind
 * the CBORServingAndStorage gate) encodes any value. Watch frames: JSON lines,
 * length-prefixed protobuf frames, or a CBOR sequence.
 */
import { stringify as yamlStringify } from "yaml";
import { encodeCbor, encodeCborSeqItem } from "../../../shared/codec/cbor.ts";
import { encodeFrame, encodeList, encodeObject, encodeStatus, encodeWatchEvent } from "../../../shared/codec/protobuf/index.ts";
import type { Status } from "../../../shared/api/status.ts";
import { toJSONText } from "../../../shared/schema/values.ts";
import type { JsonObject } from "../storage/object.ts";
import { answerRecord, markResponse } from "./answer-record.ts";
import type { RequestScope } from "./scope.ts";

export type ResponseMediaType = string;

/** What a body is, for encodings that need the kind (protobuf). */
export type BodyShape = "object" | "list" | "other";

/** JSON text; values holding big integers (beyond 2^53, from the strict decoder) keep their digits. */
export function jsonText(value: unknown, pretty: boolean): string {
  try {
    return pretty ? JSON.stringify(value, null, 2) + "\n" : JSON.stringify(value);
  } catch (err) {
    if (err instanceof TypeError && /BigInt/.test(err.message)) return toJSONText(value);
    throw err;
  }
}

export function encodeText(value: unknown, mediaType: string, pretty: boolean): string {
  if (mediaType === "application/yaml") return yamlStringify(value, { aliasDuplicateObjects: false });
  return jsonText(value, pretty);
}

export function jsonResponse(value: unknown, status: number, opts: { mediaType?: string; pretty?: boolean; headers?: Record<string, string> } = {}): Response {
  const mediaType = opts.mediaType === "application/yaml" ? "application/yaml" : "application/json";
  const headers = new Headers(opts.headers);
  headers.set("content-type", mediaType);
  return new Response(encodeText(value, mediaType, !!opts.pretty), { status, headers });
}

/**
 * A Status answer: in the envelope (kind Status, `v1`) when `protobuf` is set and
 * `mediaType` is the profile's protobuf type, else JSON or YAML text.
 */
export function statusResponse(status: Status, opts: { mediaType?: string; protobuf?: boolean; pretty?: boolean; headers?: Record<string, string> } = {}): Response {
  const code = status.code ?? 500;
  if (!opts.protobuf || !opts.mediaType) return jsonResponse(status, code, opts);
  const headers = new Headers(opts.headers);
  headers.set("content-type", opts.mediaType);
  return new Response(encodeStatus(status as unknown as JsonObject), { status: code, headers });
}

/** Protobuf has messages for objects and lists of the endpoint's kind only, and none for conversions. */
function usesProtobuf(s: RequestScope, shape: BodyShape): boolean {
  return s.encoding === "protobuf" && shape !== "other" && !s.target;
}

/** Content-Type of a handler's result in the scope's negotiated encoding. */
export function bodyContentType(s: RequestScope, shape: BodyShape): string {
  if (usesProtobuf(s, shape) || s.encoding === "cbor") return s.mediaType;
  return s.mediaType === "application/yaml" ? "application/yaml" : "application/json";
}

/** A handler's result in the scope's negotiated encoding (text for JSON and YAML). */
export function encodeBody(s: RequestScope, value: JsonObject, shape: BodyShape): string | Uint8Array {
  if (usesProtobuf(s, shape)) return shape === "object" ? encodeObject(s.resource.def, value, s.profile) : encodeList(s.resource.def, value, s.profile);
  if (s.encoding === "cbor") return encodeCbor(value);
  return encodeText(value, bodyContentType(s, shape), s.pretty);
}

/**
 * A response with an encoded body. The scope's warnings are the request context's: with-warnings answers them.
 * Its header record starts with the answer headers recorded so far (answer-record.ts).
 */
export function bodyResponse(s: RequestScope, body: string | Uint8Array | ReadableStream<Uint8Array>, contentType: string, status: number, extraHeaders: Record<string, string> = {}): Response {
  const recorded = s.answerHeaders;
  const entries = recorded ? recorded.length : 0;
  const headers = answerRecord(recorded, extraHeaders);
  headers["content-type"] = contentType;
  return markResponse(new Response(body, { status, headers }), entries, body);
}

/** Encodes a handler's result for the scope's negotiated encoding. */
export function respond(s: RequestScope, value: JsonObject, status: number, shape: BodyShape, extraHeaders: Record<string, string> = {}): Response {
  return bodyResponse(s, encodeBody(s, value, shape), bodyContentType(s, shape), status, extraHeaders);
}

const utf8 = new TextEncoder();

/** What a watch frame's encoding depends on (a watch keeps this, not its whole scope). */
export type WatchFraming = Pick<RequestScope, "encoding" | "mediaType" | "target" | "resource" | "profile">;

/** One watch frame in the scope's encoding. */
export function encodeWatchFrame(s: WatchFraming, event: { type: string; object: JsonObject }): Uint8Array {
  if (s.encoding === "protobuf" && !s.target && event.type !== "ERROR") {
    return encodeFrame(encodeWatchEvent(s.resource.def, { type: event.type, object: event.object }, s.profile));
  }
  if (s.encoding === "cbor") return encodeCborSeqItem(event);
  return utf8.encode(jsonText(event, false) + "\n");
}

/** Content-Type of a watch stream. */
export function watchContentType(s: WatchFraming): string {
  if (s.encoding === "protobuf" && !s.target) return `${s.mediaType};stream=watch`;
  if (s.encoding === "cbor") return "application/cbor-seq";
  return "application/json";
}
