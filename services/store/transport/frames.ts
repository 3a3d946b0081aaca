// Framing of the peer stream: the messages of peer.proto (PeerBatch, PeerAck,
// SnapshotChunk, SnapshotAck, in the codec of peer-wire.ts) written one after
// another on a TCP or TLS connection.
//
//   frame := u32 length (big endian, of kind + payload) u8 kind payload
//
// Pure: no I/O. A frame whose length is 0 or above MAX_FRAME_BYTES, or whose
// kind is unknown, makes FrameReader.push throw FrameError; the connection is
// then dropped (the stream cannot be resynchronized).

/** What a frame carries. Batches and snapshot chunks go from a sender to a receiver; acks come back. */
export const FrameKind = { Batch: 1, Ack: 2, SnapshotChunk: 3, SnapshotAck: 4 } as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

const MAX_KIND = 4;
/** Bytes before the payload: the length and the kind. */
export const FRAME_HEADER_BYTES = 5;
/** Largest frame (kind and payload); above the largest batch and snapshot chunk a sender makes. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export class FrameError extends Error {}

/**
 * Writes the header of a frame into the first FRAME_HEADER_BYTES of `buf`,
 * whose payload follows it (a codec asked for that much headroom); returns `buf`.
 */
export function sealFrame(kind: FrameKind, buf: Buffer): Buffer {
  buf.writeUInt32BE(buf.length - 4, 0);
  buf[4] = kind;
  return buf;
}

export interface Frame {
  kind: FrameKind;
  /** A view of the received bytes. */
  payload: Uint8Array;
}

/**
 * Cuts received chunks into frames. The chunks of an incomplete frame are held
 * and joined once, when the frame is complete (a large frame arriving in many
 * chunks is not copied again for each of them).
 */
export class FrameReader {
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** Bytes the held chunks must reach before a frame can complete. */
  private need = FRAME_HEADER_BYTES;

  /** The frames completed by `chunk`, in order. Throws FrameError on a bad header. */
  push(chunk: Buffer): Frame[] {
    let buf = chunk;
    if (this.heldBytes > 0) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes < this.need) return [];
      buf = Buffer.concat(this.held, this.heldBytes);
      this.held = [];
      this.heldBytes = 0;
    }
    const out: Frame[] = [];
    let pos = 0;
    this.need = FRAME_HEADER_BYTES;
    while (buf.length - pos >= FRAME_HEADER_BYTES) {
      const len = buf.readUInt32BE(pos);
      if (len === 0 || len > MAX_FRAME_BYTES) throw new FrameError(`peer frame of ${len} bytes (limit ${MAX_FRAME_BYTES})`);
      const kind = buf[pos + 4];
      if (kind < 1 || kind > MAX_KIND) throw new FrameError(`unknown peer frame kind ${kind}`);
      if (buf.length - pos < 4 + len) {
        this.need = 4 + len;
        break;
      }
      out.push({ kind: kind as FrameKind, payload: buf.subarray(pos + FRAME_HEADER_BYTES, pos + 4 + len) });
      pos += 4 + len;
    }
    if (pos < buf.length) {
      // A short tail is copied so that the chunk it came from can be freed.
      const tail = buf.length - pos < 4096 ? Buffer.from(buf.subarray(pos)) : buf.subarray(pos);
      this.held = [tail];
      this.heldBytes = tail.length;
    }
    return out;
  }

  /** Bytes held of an incomplete frame. */
  get buffered(): number {
    return this.heldBytes;
  }
}
