/**
 * One body encoded once and read by several responses at once: the chunks of one
 * `ChunkProducer` are kept in order and each reader hands them on at its own pace,
 * so N identical responses cost one encoding plus N writes.
 *
 * Contract:
 * - A chunk is produced when the furthest reader asks for one it has not got; readers
 *   behind it take the kept chunks without producing anything.
 * - A reader may join (`reader()`) while `joinable`: from the first chunk on, so every
 *   reader gets the whole body.
 * - Kept chunks are bounded: once they exceed `maxKeptBytes` the body stops being
 *   joinable and chunks every reader has passed are dropped.
 * - When the last reader ends or cancels, the producer is stopped at once (no work
 *   goes on for nobody) and `onIdle` runs; a body that failed errors every reader.
 */
import type { ChunkProducer } from "./chunked-stream.ts";

interface ReaderState {
  /** Index (in all chunks ever produced) of the next chunk this reader hands on. */
  at: number;
}

export class SharedChunks {
  /** Chunks kept, `chunks[0]` being chunk number `dropped`. */
  private readonly chunks: Uint8Array[] = [];
  private dropped = 0;
  private keptBytes = 0;
  private producing?: Promise<void>;
  private failure?: { error: unknown };
  private done = false;
  private readonly readers = new Set<ReaderState>();
  private closed = false;

  constructor(
    private readonly producer: ChunkProducer,
    private readonly opts: { maxKeptBytes: number; onIdle?: () => void },
    first?: Uint8Array,
  ) {
    if (first) this.keep(first);
  }

  /** A new reader can still get the whole body. */
  get joinable(): boolean {
    return !this.closed && this.dropped === 0 && this.keptBytes <= this.opts.maxKeptBytes;
  }

  get readerCount(): number {
    return this.readers.size;
  }

  /** A stream of the whole body; only while `joinable`. */
  reader(): ReadableStream<Uint8Array> {
    if (!this.joinable) throw new Error("shared body is no longer joinable");
    const state: ReaderState = { at: 0 };
    this.readers.add(state);
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const chunk = await this.chunkFor(state);
          if (chunk) {
            controller.enqueue(chunk);
            return;
          }
          this.leave(state);
          controller.close();
        },
        cancel: () => this.leave(state),
      },
      { highWaterMark: 0 },
    );
  }

  /** The reader's next chunk, producing it when no reader had asked for it yet; undefined at the end. */
  private async chunkFor(state: ReaderState): Promise<Uint8Array | undefined> {
    for (;;) {
      if (state.at < this.dropped + this.chunks.length) {
        const chunk = this.chunks[state.at - this.dropped];
        state.at++;
        this.dropPassed();
        return chunk;
      }
      if (this.failure) {
        this.leave(state);
        throw this.failure.error;
      }
      if (this.done || this.closed) return undefined;
      this.producing ??= this.produce();
      await this.producing;
    }
  }

  private async produce(): Promise<void> {
    try {
      const chunk = await this.producer.next();
      if (chunk) this.keep(chunk);
      else this.done = true;
    } catch (error) {
      this.failure = { error };
    } finally {
      this.producing = undefined;
    }
  }

  private keep(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.keptBytes += chunk.length;
    this.dropPassed();
  }

  /** Past the bound, chunks every reader has handed on are let go. */
  private dropPassed(): void {
    if (this.keptBytes <= this.opts.maxKeptBytes) return;
    let slowest = this.dropped + this.chunks.length;
    for (const r of this.readers) slowest = Math.min(slowest, r.at);
    while (this.dropped < slowest) {
      this.keptBytes -= (this.chunks.shift() as Uint8Array).length;
      this.dropped++;
    }
  }

  private leave(state: ReaderState): void {
    if (!this.readers.delete(state) || this.readers.size > 0) return;
    this.closed = true;
    this.producer.stop();
    this.chunks.length = 0;
    this.keptBytes = 0;
    this.opts.onIdle?.();
  }
}
