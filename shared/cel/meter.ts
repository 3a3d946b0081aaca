/**
 * The cost meter of one evaluation. Charges add up; the charge that passes the
 * budget throws CelCostLimitError, and so does every later charge, so an
 * evaluation that swallows the error (`||`, `exists`) still stops at its next step.
 */
import { CelCostLimitError } from "./errors.ts";

export class CostMeter {
  #used = 0;
  #exceeded = false;

  constructor(readonly budget: number) {
    if (!(budget >= 0)) throw new RangeError("cost budget must be a non-negative number");
  }

  /** Cost units charged so far (may pass the budget by the last charge). */
  get used(): number {
    return this.#used;
  }

  get exceeded(): boolean {
    return this.#exceeded;
  }

  /** Adds `units`; throws once the total is over the budget. */
  charge(units: number): void {
    if (this.#exceeded) throw new CelCostLimitError();
    this.#used += units;
    if (this.#used > this.budget) {
      this.#exceeded = true;
      throw new CelCostLimitError();
    }
  }
}
