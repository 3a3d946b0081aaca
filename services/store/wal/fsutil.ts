import { writeSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

/** Makes creations, renames and unlinks in `dir` durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Writes all of `buf` at `position` (a regular-file write may be short). */
export async function writeFully(fh: FileHandle, buf: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, position + done);
    if (bytesWritten <= 0) throw new Error("write made no progress");
    done += bytesWritten;
  }
}

/**
 * writeFully without leaving the thread: a write into the page cache takes
 * microseconds, less than the hop to the thread pool and back. The fsync that
 * follows is what takes time, and stays asynchronous.
 */
export function writeFullySync(fd: number, buf: Uint8Array, position: number): void {
  let done = 0;
  while (done < buf.length) {
    const bytesWritten = writeSync(fd, buf, done, buf.length - done, position + done);
    if (bytesWritten <= 0) throw new Error("write made no progress");
    done += bytesWritten;
  }
}

export function hex16(n: number): string {
  return n.toString(16).padStart(16, "0");
}

export function isNotFound(err: unknown): boolean {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === "ENOENT";
}
