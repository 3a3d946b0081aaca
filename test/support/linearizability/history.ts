/**
 * A concurrent history as a linearizability checker reads it: one record per client
 * operation with its input, the times it was called and returned, and its output.
 *
 * An operation that never returned (client timeout, connection reset) is *pending*:
 * `returned` and `output` are undefined. It may or may not have taken effect; if it
 * did, it took effect at some point after its call.
 */
export interface Operation<I, O> {
  /** Unique within the history; used in reports. */
  id: number;
  client: number;
  input: I;
  /** Call time (any monotonic clock, same for every client). */
  called: number;
  /** Return time; undefined when the operation is pending. */
  returned?: number;
  /** Output; undefined when the operation is pending. */
  output?: O;
}

export function isPending<I, O>(op: Operation<I, O>): boolean {
  return op.returned === undefined;
}

/**
 * The history as it stood at time `t`: operations called after `t` are dropped,
 * operations that returned after `t` become pending.
 */
export function cutAt<I, O>(ops: readonly Operation<I, O>[], t: number): Operation<I, O>[] {
  const out: Operation<I, O>[] = [];
  for (const op of ops) {
    if (op.called > t) continue;
    if (op.returned !== undefined && op.returned <= t) out.push(op);
    else out.push({ id: op.id, client: op.client, input: op.input, called: op.called });
  }
  return out;
}
