/**
 * The gRPC-over-HTTP/2 wire rules a unary call needs (gRPC's PROTOCOL-HTTP2): the
 * length-prefixed message (1 byte compressed flag, 4 bytes big-endian length), the
 * `grpc-timeout` header, and the status of a call from its headers or trailers
 * (`grpc-status`, percent-encoded `grpc-message`), or from the HTTP status when the
 * server sent none — mapped as gRPC's table (and grpc-js) do.
 */
import { GrpcStatus } from "./errors.ts";

export interface CallStatus {
  code: GrpcStatus;
  details: string;
}

/** One uncompressed message with its 5-byte prefix. */
export function frameMessage(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/**
 * The one message of a unary response from its DATA bytes: undefined when there is
 * none; a status when the bytes are not exactly one uncompressed message.
 */
export function unframeMessage(data: Buffer): Buffer | undefined | CallStatus {
  if (data.length === 0) return undefined;
  if (data.length < 5) return { code: GrpcStatus.INTERNAL, details: "Received a truncated message" };
  if (data[0] !== 0) return { code: GrpcStatus.INTERNAL, details: "Received a compressed message without a negotiated encoding" };
  const length = data.readUInt32BE(1);
  if (data.length < 5 + length) return { code: GrpcStatus.INTERNAL, details: "Received a truncated message" };
  if (data.length > 5 + length) return { code: GrpcStatus.INTERNAL, details: "Received more than one message for a unary call" };
  return data.subarray(5);
}

/** `grpc-timeout` for a remaining time in ms: at most 8 digits, in the finest unit that fits. */
export function grpcTimeout(ms: number): string {
  const m = Math.max(0, Math.ceil(ms));
  if (m < 1e8) return `${m}m`;
  const s = Math.ceil(m / 1000);
  if (s < 1e8) return `${s}S`;
  return `${Math.min(Math.ceil(s / 3600), 99_999_999)}H`;
}

function headerString(v: string | string[] | number | undefined): string | undefined {
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v[0] : String(v);
}

/** `grpc-message` is percent-encoded; a malformed encoding is kept as sent. */
export function decodeGrpcMessage(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** gRPC's mapping of an HTTP status without a gRPC status. */
export function statusFromHttp(httpStatus: number): CallStatus {
  const details = `Received HTTP status code ${httpStatus}`;
  switch (httpStatus) {
    case 400:
      return { code: GrpcStatus.INTERNAL, details };
    case 401:
      return { code: GrpcStatus.UNAUTHENTICATED, details };
    case 403:
      return { code: GrpcStatus.PERMISSION_DENIED, details };
    case 404:
      return { code: GrpcStatus.UNIMPLEMENTED, details };
    case 429:
    case 502:
    case 503:
    case 504:
      return { code: GrpcStatus.UNAVAILABLE, details };
    default:
      return { code: GrpcStatus.UNKNOWN, details };
  }
}

/** The status carried by a header block (response headers of a trailers-only answer, or trailers); undefined without one. */
export function statusFromHeaders(headers: Record<string, string | string[] | number | undefined>): CallStatus | undefined {
  const raw = headerString(headers["grpc-status"]);
  if (raw === undefined) return undefined;
  const code = Number(raw);
  const details = decodeGrpcMessage(headerString(headers["grpc-message"]) ?? "");
  if (!Number.isInteger(code) || code < 0) return { code: GrpcStatus.UNKNOWN, details: `Invalid grpc-status ${raw}` };
  return { code: code as GrpcStatus, details };
}
