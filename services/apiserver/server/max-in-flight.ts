/**
 * Max-in-flight limits: separate budgets for read-only and mutating requests; a
 * request over its budget is rejected with 429 and `Retry-After: 1`. Watches and
 * other long-running requests are not counted.
 */
import { tooManyRequests } from "../../../shared/api/status.ts";
import type { RequestInfo } from "../endpoints/request-info.ts";

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);
const LONG_RUNNING = new Set(["watch", "proxy"]);
const LONG_RUNNING_SUBRESOURCES = new Set(["log", "exec", "attach", "portforward"]);
const NOTHING_TO_RELEASE = (): void => {};

export class InFlightLimiter {
  private readOnly = 0;
  private mutating = 0;

  constructor(
    private readonly maxReadOnly: number,
    private readonly maxMutating: number,
  ) {}

  /** Takes a slot or throws 429; returns the release function. */
  acquire(info: RequestInfo): () => void {
    if (LONG_RUNNING.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource))) return NOTHING_TO_RELEASE;
    const isMutating = MUTATING.has(info.verb);
    if (isMutating) {
      if (this.maxMutating > 0 && this.mutating >= this.maxMutating) throw tooManyRequests();
      this.mutating++;
    } else {
      if (this.maxReadOnly > 0 && this.readOnly >= this.maxReadOnly) throw tooManyRequests();
      this.readOnly++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (isMutating) this.mutating--;
      else this.readOnly--;
    };
  }

  get counts(): { readOnly: number; mutating: number } {
    return { readOnly: this.readOnly, mutating: this.mutating };
  }
}
