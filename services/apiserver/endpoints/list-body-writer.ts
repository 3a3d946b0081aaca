/**
 * A streamed list body that writes itself to the node response (direct-body.ts), instead
 * of being read through a ReadableStream by the HTTP adapter.
 *
 * Contract: the bytes written are the producer's chunks in order (after `first`, when
 * given), then the response ends. A chunk's pieces go out corked, as one socket write,
 * without being copied into one buffer first. No chunk is asked for while the response
 * is backed up: after a write the response refuses, the next waits for its `drain`.
 * The response closing (client gone) stops the producer; a producer error destroys the
 * response with it.
 */
import type { ServerResponse } from "node:http";
import type { ChunkProducer } from "../../../shared/codec/chunked-stream.ts";
import type { DirectSource } from "./direct-body.ts";

/** What the writer uses of a node response. */
export type BodyResponse = Pick<ServerResponse, "write" | "cork" | "uncork" | "end" | "destroy" | "destroyed" | "on" | "off">;

export class ListBodyWriter implements DirectSource {
  constructor(
    private readonly producer: ChunkProducer,
    private readonly first: Uint8Array | undefined,
  ) {}

  attach(out: ServerResponse): void {
    void this.writeTo(out);
  }

  /** Writes the whole body; resolves once it is written, or the response closed or failed. */
  async writeTo(out: BodyResponse): Promise<void> {
    const stop = () => this.producer.stop();
    out.on("close", stop);
    try {
      let parts: Uint8Array[] | undefined = this.first ? [this.first] : await this.producer.nextParts();
      while (parts && !out.destroyed) {
        if (!writeCorked(out, parts)) await drainOrClose(out);
        if (out.destroyed) break;
        parts = await this.producer.nextParts();
      }
      if (!out.destroyed) out.end();
    } catch (err) {
      out.destroy(err instanceof Error ? err : new Error(String(err)));
    } finally {
      out.off("close", stop);
    }
  }
}

/** Writes the pieces as one socket write; false when the response asks the writer to wait for `drain`. */
function writeCorked(out: BodyResponse, parts: readonly Uint8Array[]): boolean {
  if (parts.length === 1) return out.write(parts[0]);
  out.cork();
  let more = true;
  for (const p of parts) more = out.write(p);
  out.uncork();
  return more;
}

function drainOrClose(out: BodyResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("close", done);
      resolve();
    };
    out.on("drain", done);
    out.on("close", done);
  });
}
