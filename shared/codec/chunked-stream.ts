/**
 * A response body produced piece by piece from a generator of pieces (bytes or text),
 * so that a large body is never held whole and never holds the thread for long.
 *
 * The slicing core is `ChunkProducer`: each `next()` gathers pieces into one chunk
 * until `chunkBytes` are collected or `sliceMs` of work have passed; consecutive
 * chunks are separated by a turn of the event loop (the scheduler's `nextTurn`,
 * setImmediate by default), so other requests run between chunks. All producers of
 * the process share one budget of work per event-loop turn (`TurnBudget`,
 * `TURN_BUDGET_MS`): twenty large lists together delay other requests by about one
 * budget per turn, not twenty slices. Work done past the budget (a body's first slice,
 * which never waits, or a slice's overrun) is a debt later turns repay before any
 * other slice runs. The work of a slice is its time plus its bytes
 * at `WRITE_MS_PER_MIB`: the bytes are copied into one chunk and then written to a TLS
 * socket (encrypted and handed to the kernel, partly right after the slice, mostly as
 * the socket drains), and a chunk of kept bytes costs little to gather but as much as
 * any to write. A piece
 * `PAUSE` produces no bytes; it only lets
 * a slice end during long work that emits nothing (a size pass). `stop()` returns the
 * generator (its `finally` runs) and no piece is produced after it, even by a slice
 * that was waiting for its turn.
 *
 * `chunkedStream` is one reader over a producer: a pull-based ReadableStream
 * (backpressure: the producer advances only when the consumer asks for data); an
 * exception from the generator errors the stream; cancelling the stream stops the
 * producer.
 */
export const PAUSE: unique symbol = Symbol("pause");

export type Piece = Uint8Array | string | typeof PAUSE;

export interface ChunkedStreamOptions {
  /** Bytes gathered into one chunk before it is handed on (default 64 KiB). */
  chunkBytes?: number;
  /** Work time of one slice before it yields (default `SLICE_MS`). */
  sliceMs?: number;
  /**
   * Bytes a chunk holds at least before its slice may end by time (default 0). On a
   * loaded machine a slice of wall time holds little work; without this floor a body
   * would go out in many tiny writes, each with its own turn, write and drain.
   */
  minChunkBytes?: number;
  /**
   * Bytes a body's first slice holds at most when the turn's budget is already spent
   * (default `chunkBytes`): a body that small is answered at once, a larger one goes
   * on under the budget.
   */
  firstChunkBytes?: number;
}

/** Time and turns of the event loop, injectable so the slicing core is tested without either. */
export interface TurnScheduler {
  now(): number;
  /** Resolves on a later turn of the event loop, after I/O had its chance. */
  nextTurn(): Promise<void>;
}

export const eventLoopScheduler: TurnScheduler = {
  now: () => performance.now(),
  nextTurn: () => new Promise((resolve) => setImmediate(resolve)),
};

/** Work (ms) of one slice before it yields. */
export const SLICE_MS = 2;
/**
 * Work (ms) all chunk producers together may do in one turn of the event loop, on
 * average (debts included). Each turn also carries the requests that streamed bodies
 * bring along (a flood's next lists, socket drains), so a turn under a list flood lasts
 * a few times this budget: at 0.5 ms the loop's median delay under `bench -- apf`'s
 * flood was 1.1-1.2 ms against 1.6-2.6 ms at 1 ms, for about a quarter fewer lists.
 * At 0.25 ms (same bench, 3 rounds alternating, load 6.1-7.9) the flood got another
 * quarter fewer lists while the loop's p99 under it did not fall (6.2-8.8 vs 5.5-6.3 ms)
 * and the tenant's p99 stayed within the noise (new/old 0.71 / 0.91 / 1.15).
 */
export const TURN_BUDGET_MS = 0.5;
/**
 * Work (ms) charged per MiB a producer hands on: copying it, then encrypting and writing
 * it to a TLS socket. Writing 256 MiB in 256 KiB pieces to a loopback HTTPS client cost
 * the server 1.9-2.2 ms of CPU per MiB (0.2-0.5 ms of it inside write(), the rest as the
 * socket drains).
 */
export const WRITE_MS_PER_MIB = 2;

/**
 * One turn's work budget shared by producers. Work spent past it is a debt the next
 * turns repay: a refill adds one turn's budget to what is left, up to one turn's
 * budget, and refills go on turn after turn while the budget is below that. So work
 * that ran although the budget was spent (a body's first slice, or the last slice's
 * overrun) is counted too, and list bodies together do at most about `perTurnMs` of
 * work per turn on average.
 */
export class TurnBudget {
  private left: number;
  private refillScheduled = false;
  /** Work (ms) charged per byte produced. */
  readonly msPerByte: number;

  constructor(
    readonly scheduler: TurnScheduler = eventLoopScheduler,
    readonly perTurnMs: number = TURN_BUDGET_MS,
    writeMsPerMiB: number = WRITE_MS_PER_MIB,
  ) {
    this.left = perTurnMs;
    this.msPerByte = writeMsPerMiB / (1024 * 1024);
  }

  /** Work (ms) the current turn may still do; zero or less when spent (a debt when below zero). */
  get available(): number {
    return this.left;
  }

  spend(ms: number): void {
    this.left -= ms;
    this.scheduleRefill();
  }

  private scheduleRefill(): void {
    if (this.refillScheduled || this.left >= this.perTurnMs) return;
    this.refillScheduled = true;
    void this.scheduler.nextTurn().then(() => {
      this.refillScheduled = false;
      this.left = Math.min(this.perTurnMs, this.left + this.perTurnMs);
      this.scheduleRefill();
    });
  }
}

/** The process's budget, shared by every streamed body. */
export const processTurnBudget = new TurnBudget();

const utf8 = new TextEncoder();

export class ChunkProducer {
  private readonly chunkBytes: number;
  private readonly sliceMs: number;
  private readonly minChunkBytes: number;
  private readonly firstChunkBytes: number;
  private started = false;
  private ended = false;

  constructor(
    private readonly pieces: Iterator<Piece>,
    private readonly budget: TurnBudget = processTurnBudget,
    opts: ChunkedStreamOptions = {},
  ) {
    this.chunkBytes = opts.chunkBytes ?? 64 * 1024;
    this.sliceMs = opts.sliceMs ?? SLICE_MS;
    this.minChunkBytes = opts.minChunkBytes ?? 0;
    this.firstChunkBytes = opts.firstChunkBytes ?? this.chunkBytes;
  }

  /** No more chunks: the generator ended, failed or was stopped. */
  get finished(): boolean {
    return this.ended;
  }

  /**
   * The next chunk, or undefined once the generator is done or stopped. The first
   * call starts at once, even when the turn's budget is spent (a small body costs no
   * extra turn; see `firstChunkBytes`); later calls wait for the next turn and for
   * budget first. A slice's work is its time plus its bytes' writing cost; it is
   * charged to the budget when the slice ends. Calls must not overlap.
   */
  async next(): Promise<Uint8Array | undefined> {
    const parts = await this.nextParts();
    return parts && concat(parts, byteLength(parts));
  }

  /**
   * The next chunk as the pieces it gathered, in order (none empty), for a writer that
   * hands several buffers to one socket write (no copy into one chunk first); `next()`
   * in every other respect.
   */
  async nextParts(): Promise<Uint8Array[] | undefined> {
    if (this.ended) return undefined;
    const { scheduler, msPerByte } = this.budget;
    if (this.started) await scheduler.nextTurn();
    const parts: Uint8Array[] = [];
    let size = 0;
    // The first slice runs at once whatever the budget: a body of one slice (a small
    // list) is never held back behind large ones.
    let first = !this.started;
    this.started = true;
    for (;;) {
      while (!first && this.budget.available <= 0 && !this.ended) await scheduler.nextTurn();
      if (this.ended) return undefined; // stopped while waiting for its turn
      const sliceStart = scheduler.now();
      const left = this.budget.available;
      // A first slice with the budget spent still runs (its work becomes the next turns'
      // debt) but holds at most firstChunkBytes; any other slice works within what is left.
      const allowance = left > 0 ? Math.min(this.sliceMs, left) : this.sliceMs;
      const maxBytes = left > 0 ? this.chunkBytes : Math.min(this.chunkBytes, this.firstChunkBytes);
      first = false;
      let done = false;
      try {
        for (;;) {
          const r = this.pieces.next();
          if (r.done) {
            done = true;
            break;
          }
          if (r.value !== PAUSE) {
            const bytes = typeof r.value === "string" ? utf8.encode(r.value) : r.value;
            if (bytes.length > 0) {
              parts.push(bytes);
              size += bytes.length;
            }
          }
          if (size >= maxBytes) break;
          // Work ends a slice once the chunk has its floor, or when it has no bytes at all (a size pass).
          if ((size === 0 || size >= this.minChunkBytes) && scheduler.now() - sliceStart + size * msPerByte >= allowance) break;
        }
      } catch (err) {
        this.ended = true;
        throw err;
      } finally {
        this.budget.spend(scheduler.now() - sliceStart + size * msPerByte);
      }
      if (done) this.ended = true;
      if (size > 0) return parts;
      if (done) return undefined;
      await scheduler.nextTurn(); // a slice of work that produced nothing yet
    }
  }

  /** Ends the generator now; pending and later `next()` calls produce nothing. */
  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.pieces.return?.();
  }
}

/** A pull-based stream of a producer's chunks; `first`, when given, is handed on before any further chunk. */
export function producerStream(producer: ChunkProducer, first?: Uint8Array): ReadableStream<Uint8Array> {
  let pending = first;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = pending ?? (await producer.next());
        pending = undefined;
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
      cancel() {
        producer.stop();
      },
    },
    { highWaterMark: 0 },
  );
}

export function chunkedStream(pieces: Iterator<Piece>, opts: ChunkedStreamOptions = {}): ReadableStream<Uint8Array> {
  return producerStream(new ChunkProducer(pieces, processTurnBudget, opts));
}

function byteLength(parts: readonly Uint8Array[]): number {
  let size = 0;
  for (const p of parts) size += p.length;
  return size;
}

export function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** All bytes of a stream (tests and small bodies). */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    parts.push(r.value);
    size += r.value.length;
  }
  return concat(parts, size);
}
