/**
 * A sequential specification for the linearizability checker (Porcupine's Model).
 *
 * `step` may be nondeterministic: it returns every state the operation can lead
 * to from `state` given its output (an empty list: the output is impossible there).
 * For a pending operation `output` is undefined and the step only applies the
 * effect. The checker tracks sets of states, so nondeterminism costs no search.
 */
export interface Model<S, I, O> {
  init(): S;
  step(state: S, input: I, output: O | undefined): S[];
  /** Identity of a state: equal keys mean equal states (for memoization). */
  stateKey(state: S): string;
  /** P-compositionality: operations on different partitions never interact. */
  partitionKey(input: I): string;
  describe(input: I, output: O | undefined): string;
}
