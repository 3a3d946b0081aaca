// The peer and node formats' binding of the store's binary writer and reader
// (encoding/binary.ts): malformed input throws CodecError.

import { BinaryReader, BinaryWriter } from "../encoding/binary.ts";

export class CodecError extends Error {
  constructor(message: string) {
    super(`peer codec: ${message}`);
    this.name = "CodecError";
  }
}

export { BinaryWriter as Writer };

export class Reader extends BinaryReader {
  constructor(buf: Uint8Array) {
    super(buf, (message) => new CodecError(message));
  }
}
