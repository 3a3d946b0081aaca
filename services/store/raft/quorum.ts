// Quorum arithmetic for majority configs and joint (two-majority) configs.
// Pure functions of the voter sets and what each voter acknowledged.

export const VoteResult = {
  /** Neither won nor lost yet: some votes are outstanding. */
  Pending: 1,
  Lost: 2,
  Won: 3,
} as const;
export type VoteResult = (typeof VoteResult)[keyof typeof VoteResult];

/** The largest index (or infinity for an empty config) that a majority of voters acknowledged. */
export type AckedIndexer = (id: number) => number | undefined;

/** An empty config commits everything, so that it is neutral in a joint config. */
export const emptyConfigCommitIndex = Number.MAX_SAFE_INTEGER;

/**
 * The highest index acknowledged by a majority of `voters`. A voter with no
 * acknowledgement counts as 0.
 */
export function majorityCommittedIndex(voters: ReadonlySet<number>, acked: AckedIndexer): number {
  const n = voters.size;
  if (n === 0) return emptyConfigCommitIndex;
  const idx: number[] = [];
  for (const id of voters) idx.push(acked(id) ?? 0);
  idx.sort((a, b) => b - a);
  // With indexes sorted descending, the (n/2+1)-th is acknowledged by a majority.
  return idx[Math.floor(n / 2)];
}

/**
 * The result of an election in a majority config given the recorded votes
 * (true = granted). An empty config wins, for the same reason as above.
 */
export function majorityVoteResult(voters: ReadonlySet<number>, votes: ReadonlyMap<number, boolean>): VoteResult {
  if (voters.size === 0) return VoteResult.Won;
  let granted = 0;
  let missing = 0;
  for (const id of voters) {
    const v = votes.get(id);
    if (v === undefined) missing++;
    else if (v) granted++;
  }
  const q = Math.floor(voters.size / 2) + 1;
  if (granted >= q) return VoteResult.Won;
  if (granted + missing >= q) return VoteResult.Pending;
  return VoteResult.Lost;
}

/** Two majority configs; `outgoing` is empty unless the config is joint. */
export interface JointConfig {
  incoming: Set<number>;
  outgoing: Set<number>;
}

export function jointCommittedIndex(cfg: JointConfig, acked: AckedIndexer): number {
  return Math.min(majorityCommittedIndex(cfg.incoming, acked), majorityCommittedIndex(cfg.outgoing, acked));
}

/** A joint election is won when both halves win and lost when either loses. */
export function jointVoteResult(cfg: JointConfig, votes: ReadonlyMap<number, boolean>): VoteResult {
  const r1 = majorityVoteResult(cfg.incoming, votes);
  const r2 = majorityVoteResult(cfg.outgoing, votes);
  if (r1 === r2) return r1;
  if (r1 === VoteResult.Lost || r2 === VoteResult.Lost) return VoteResult.Lost;
  return VoteResult.Pending;
}

/** All voter ids of a joint config, sorted. */
export function jointIds(cfg: JointConfig): number[] {
  const s = new Set<number>(cfg.incoming);
  for (const id of cfg.outgoing) s.add(id);
  return [...s].sort((a, b) => a - b);
}
