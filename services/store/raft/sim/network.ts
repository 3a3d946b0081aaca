// The simulator's network model: one queue of messages in flight between all
// nodes, and the faults it injects while the schedule is in its fault phase:
//
//   reordering   the next message delivered is the oldest one, or (with
//                probability reorderRate) a random one in flight;
//   drops        a message is lost with probability dropRate;
//   duplicates   a delivered message is put back at a random position with
//                probability dupRate, to be delivered again later;
//   partitions   nodes on different sides of the partition cannot talk.
//
// Contract: every random draw comes from the simulation's one SeededRandom,
// in the order of the calls (so a seed fixes the schedule). Once made
// reliable (the calm phase), the network is FIFO, lossless, without
// duplicates or partitions, and draws nothing.

import type { Message } from "../types.ts";
import type { SeededRandom } from "../rand.ts";

export interface NetworkRates {
  dropRate: number;
  dupRate: number;
  reorderRate: number;
}

export class SimNetwork {
  private readonly queue: Message[] = [];
  private partition: Set<number> | undefined;
  private isReliable = false;

  constructor(
    private readonly rng: SeededRandom,
    private readonly rates: NetworkRates,
  ) {}

  /** Messages in flight. */
  get length(): number {
    return this.queue.length;
  }

  /** True once the calm phase made the network reliable. */
  get reliable(): boolean {
    return this.isReliable;
  }

  send(m: Message): void {
    this.queue.push(m);
  }

  /** Removes and returns the next message to deliver, if any. */
  take(): Message | undefined {
    if (this.queue.length === 0) return undefined;
    const idx = this.isReliable || !this.rng.chance(this.rates.reorderRate) ? 0 : this.rng.intn(this.queue.length);
    return this.queue.splice(idx, 1)[0];
  }

  connected(a: number, b: number): boolean {
    if (!this.partition) return true;
    return this.partition.has(a) === this.partition.has(b);
  }

  /** Whether a message that could be delivered is lost instead (draws only in the fault phase). */
  loses(): boolean {
    return !this.isReliable && this.rng.chance(this.rates.dropRate);
  }

  /** Maybe puts a delivered message back in flight to be delivered again. */
  maybeDuplicate(m: Message): void {
    if (!this.isReliable && this.rng.chance(this.rates.dupRate)) {
      this.queue.splice(this.rng.intn(this.queue.length + 1), 0, m);
    }
  }

  /** Splits the nodes: those in `side` talk only among themselves. */
  split(side: Set<number>): void {
    this.partition = side;
  }

  heal(): void {
    this.partition = undefined;
  }

  /** Heals the network and stops injecting faults for good. */
  makeReliable(): void {
    this.isReliable = true;
    this.partition = undefined;
  }
}
