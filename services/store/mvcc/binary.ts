/**
 * The MVCC formats' binding of the store's binary writer and reader
 * (encoding/binary.ts), shared by Raft log entries and snapshots: malformed
 * input throws DecodeError.
 */
import { BinaryReader as SharedReader, BinaryWriter } from "../encoding/binary.ts";

export { BinaryWriter };

export class DecodeError extends Error {
  constructor(message: string) {
    super(`mvcc: malformed encoding: ${message}`);
    this.name = "DecodeError";
  }
}

export class BinaryReader extends SharedReader {
  constructor(buf: Uint8Array) {
    super(buf, (message) => new DecodeError(message));
  }
}
