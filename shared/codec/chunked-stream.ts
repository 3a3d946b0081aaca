/**
 * A response body produced piece by piece: a pull-based ReadableStream over a
 * generator of pieces (bytes or text), so that a large body is never held whole.
 *
 * Contract: the generator is advanced only when the consumer asks for data
 * (backpressure); one pull gathers pieces until `chunkBytes` are collected or
 * `sliceMs` of work have passed, and consecutive pulls are separated by a turn of
 * the event loop (setImmediate), so other requests run between chunks. All streams
 * of the process share one budget of work per event-loop turn (`TURN_BUDGET_MS`):
 * twenty large lists together delay other requests by about one budget per turn,
 * not twenty slices. A piece
 * `PAUSE` produces no bytes; it only lets the stream end a slice during long
 * work that emits nothing (a size pass). An exception from the generator errors
 * the stream; cancelling the stream returns the generator (its `finally` runs).
 */
export const PAUSE: unique symbol = Symbol("pause");

export type Piece = Uint8Array | string | typeof PAUSE;

export interface ChunkedStreamOptions {
  /** Bytes gathered into one chunk before it is handed on (default 64 KiB). */
  chunkBytes?: number;
  /** Work time of one pull before it yields (default 4 ms). */
  sliceMs?: number;
}

const utf8 = new TextEncoder();
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Work (ms) all chunked streams together may do in one turn of the event loop. */
export const TURN_BUDGET_MS = 4;
let budgetLeft = TURN_BUDGET_MS;
let refillScheduled = false;

/** Takes work time from this turn's budget; the budget refills on the next turn. */
function spend(ms: number): void {
  budgetLeft -= ms;
  if (!refillScheduled) {
    refillScheduled = true;
    setImmediate(() => {
      budgetLeft = TURN_BUDGET_MS;
      refillScheduled = false;
    });
  }
}

export function chunkedStream(pieces: Iterator<Piece>, opts: ChunkedStreamOptions = {}): ReadableStream<Uint8Array> {
  const chunkBytes = opts.chunkBytes ?? 64 * 1024;
  const sliceMs = opts.sliceMs ?? 4;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (started) await nextTurn();
        started = true;
        const parts: Uint8Array[] = [];
        let size = 0;
        for (;;) {
          while (budgetLeft <= 0) await nextTurn();
          const sliceStart = performance.now();
          const deadline = sliceStart + Math.min(sliceMs, budgetLeft);
          for (;;) {
            const r = pieces.next();
            if (r.done) {
              spend(performance.now() - sliceStart);
              if (size > 0) controller.enqueue(concat(parts, size));
              controller.close();
              return;
            }
            if (r.value !== PAUSE) {
              const bytes = typeof r.value === "string" ? utf8.encode(r.value) : r.value;
              if (bytes.length > 0) {
                parts.push(bytes);
                size += bytes.length;
              }
            }
            if (size >= chunkBytes || performance.now() >= deadline) break;
          }
          spend(performance.now() - sliceStart);
          if (size > 0) {
            controller.enqueue(concat(parts, size));
            return;
          }
          await nextTurn(); // a slice of work that produced nothing yet
        }
      },
      cancel() {
        pieces.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
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
