/**
 * Length-delimited framing of protobuf watch streams, as the platform's
 * `LengthDelimitedFramer`: each frame is a 4-byte big-endian length followed
 * by that many bytes (one WatchEvent message).
 */
import { ProtobufError } from "./wire.ts";

/** Default largest frame accepted by `FrameReader` (the platform caps request bodies at 3 MiB; objects in the store at 1.5 MiB). */
export const DEFAULT_MAX_FRAME = 16 * 1024 * 1024;

export function encodeFrame(payload: Uint8Array): Uint8Array {
  if (payload.length > 0xffff_ffff) throw new ProtobufError("FrameTooLarge", `frame of ${payload.length} bytes exceeds 4 GiB`);
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length, false);
  out.set(payload, 4);
  return out;
}

/**
 * Splits a byte stream into frames; feed chunks as they arrive. Throws
 * `FrameTooLarge` when a header announces more than `maxFrame` bytes (before
 * buffering them). `finish()` throws `Truncated` when the stream ended inside a frame.
 */
export class FrameReader {
  private pending: Uint8Array = new Uint8Array(0);
  constructor(private readonly maxFrame = DEFAULT_MAX_FRAME) {}

  push(chunk: Uint8Array): Uint8Array[] {
    let buf = this.pending.length === 0 ? chunk : concat(this.pending, chunk);
    const frames: Uint8Array[] = [];
    while (buf.length >= 4) {
      const len = new DataView(buf.buffer, buf.byteOffset, 4).getUint32(0, false);
      if (len > this.maxFrame) throw new ProtobufError("FrameTooLarge", `frame of ${len} bytes exceeds the limit of ${this.maxFrame}`);
      if (buf.length < 4 + len) break;
      frames.push(buf.slice(4, 4 + len));
      buf = buf.subarray(4 + len);
    }
    this.pending = buf.slice();
    return frames;
  }

  /** Bytes received but not yet part of a whole frame. */
  get buffered(): number {
    return this.pending.length;
  }

  finish(): void {
    if (this.pending.length > 0) throw new ProtobufError("Truncated", `stream ended inside a frame (${this.pending.length} bytes left)`);
  }
}

/** All frames of a complete stream; throws when it ends inside a frame. */
export function decodeFrames(stream: Uint8Array, maxFrame = DEFAULT_MAX_FRAME): Uint8Array[] {
  const r = new FrameReader(maxFrame);
  const frames = r.push(stream);
  r.finish();
  return frames;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
