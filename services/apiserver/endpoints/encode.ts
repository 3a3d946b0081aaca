/**
 * Response bodies in the negotiated media type. JSON is compact unless `pretty`;
 * YAML uses the `yaml` package. Watch frames are one JSON document per line.
 */
import { stringify as yamlStringify } from "yaml";
import type { Status } from "../../../shared/api/status.ts";

export type ResponseMediaType = "application/json" | "application/yaml";

export function encodeBody(value: unknown, mediaType: ResponseMediaType, pretty: boolean): string {
  if (mediaType === "application/yaml") return yamlStringify(value, { aliasDuplicateObjects: false });
  return pretty ? JSON.stringify(value, null, 2) + "\n" : JSON.stringify(value);
}

export function jsonResponse(value: unknown, status: number, opts: { mediaType?: ResponseMediaType; pretty?: boolean; headers?: Record<string, string> } = {}): Response {
  const mediaType = opts.mediaType ?? "application/json";
  const headers = new Headers(opts.headers);
  headers.set("content-type", mediaType);
  return new Response(encodeBody(value, mediaType, !!opts.pretty), { status, headers });
}

export function statusResponse(status: Status, opts: { mediaType?: ResponseMediaType; pretty?: boolean; headers?: Record<string, string> } = {}): Response {
  return jsonResponse(status, status.code ?? 500, opts);
}
