/**
 * Maintenance.Snapshot: the member's state at one instant as a backup image
 * (backup-image.ts), streamed as etcd streams it: messages of at most 32 KiB with
 * `remaining_bytes` counting down to 0, then one message whose blob is the image's
 * sha256 (`etcdctl snapshot save` writes the blobs as they come; restore verifies
 * the checksum). The image is built synchronously from the in-memory state, so it is
 * the state after exactly the writes applied before the call, whatever is written
 * while it streams. Honours the stream's back-pressure and stops when cancelled.
 */
import { createHash } from "node:crypto";
import type { ServerWritableStream } from "@grpc/grpc-js";
import type { ServerContext } from "../server/context.ts";
import type { PbSnapshotResponse } from "../../../shared/etcd/wire.ts";
import { encodeBackupImage } from "./backup-image.ts";

export const SNAPSHOT_CHUNK_BYTES = 32 * 1024;

/** The image of the member's current state and the header to send with it. */
export function currentImage(ctx: ServerContext): Uint8Array {
  return encodeBackupImage(ctx.backend.mvcc.state(), ctx.backend.status().appliedIndex);
}

export async function streamSnapshot(ctx: ServerContext, call: ServerWritableStream<unknown, PbSnapshotResponse>): Promise<void> {
  const header = ctx.header();
  const image = currentImage(ctx);
  let cancelled = false;
  call.on("cancelled", () => (cancelled = true));
  const send = async (msg: PbSnapshotResponse): Promise<void> => {
    if (call.write(msg)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        call.off("drain", done);
        call.off("cancelled", done);
        resolve();
      };
      call.on("drain", done);
      call.on("cancelled", done);
    });
  };
  const sha = createHash("sha256");
  for (let at = 0; at < image.length && !cancelled; at += SNAPSHOT_CHUNK_BYTES) {
    const blob = image.subarray(at, Math.min(at + SNAPSHOT_CHUNK_BYTES, image.length));
    sha.update(blob);
    await send({ header, remaining_bytes: image.length - at - blob.length, blob, version: ctx.options.version });
  }
  if (cancelled) return;
  await send({ header, remaining_bytes: 0, blob: sha.digest(), version: ctx.options.version });
  call.end();
}
