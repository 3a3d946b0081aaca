/**
 * The WAL (or a snapshot) is damaged in a way that a crash cannot explain:
 * a bad record followed by records of a later write batch, damage in a
 * segment that is not the last one, a missing segment, an index gap.
 * The store must not start on such a log: an operator has to decide.
 */
export class WalCorruptError extends Error {
  override readonly name = "WalCorruptError";
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`wal corrupt: ${file} at offset ${offset}: ${reason}`);
  }
}

/** A record whose checksum matched could not be decoded (format bug or version skew). */
export class DecodeError extends Error {
  override readonly name = "DecodeError";
}
