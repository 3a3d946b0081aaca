/**
 * Store leases for objects that expire (Events under `--event-ttl`), reused across writes
 * as the platform's storage lease manager does, since each grant is a store write:
 *  - a write asking for `ttl` seconds gets the previous lease when that lease outlives
 *    now + ttl, expires no later than now + ttl + reuse, and holds fewer than `maxObjectCount`
 *    objects; `reuse` = min(`reuseDurationSeconds`, floor(5 % of ttl));
 *  - otherwise a new lease of ttl + reuse seconds is granted and becomes the one reused.
 * So an object lives at least `ttl` and at most `ttl` + `reuse` seconds. `decideLease`
 * is the pure rule; `LeaseManager` keeps the one previous lease and grants through the
 * store (concurrent callers share one grant in flight).
 */
import { FlagError, type FlagValues } from "../../../shared/cli/flags.ts";

/** The platform's defaults: `--lease-reuse-duration-seconds` 60, 1000 objects a lease. */
export const DEFAULT_LEASE_REUSE_SECONDS = 60;
export const DEFAULT_LEASE_MAX_OBJECTS = 1000;
const REUSE_SHARE_OF_TTL = 0.05;

/** `--lease-reuse-duration-seconds`; below 1 is a start-up error, as on the platform. */
export function leaseReuseSecondsFrom(flags: FlagValues): number {
  const value = Number(flags["lease-reuse-duration-seconds"] ?? DEFAULT_LEASE_REUSE_SECONDS);
  if (!(value >= 1)) throw new FlagError(`--lease-reuse-duration-seconds should be a positive number, but value '${String(flags["lease-reuse-duration-seconds"])}' provided`);
  return value;
}

export interface LeaseManagerConfig {
  reuseDurationSeconds: number;
  maxObjectCount: number;
}

/** The lease last granted: its id, when it expires (ms) and how many objects it holds. */
export interface HeldLease {
  id: number;
  expiresAtMs: number;
  attached: number;
}

/** Seconds a lease may outlive the ttl asked for. */
export function reuseSeconds(ttlSeconds: number, config: LeaseManagerConfig): number {
  return Math.min(config.reuseDurationSeconds, Math.floor(REUSE_SHARE_OF_TTL * ttlSeconds));
}

/** Reuse `held`, or grant a lease of `grantSeconds`. */
export type LeaseDecision = { reuse: true } | { reuse: false; grantSeconds: number };

export function decideLease(held: HeldLease | undefined, ttlSeconds: number, nowMs: number, config: LeaseManagerConfig): LeaseDecision {
  const reuse = reuseSeconds(ttlSeconds, config);
  if (held) {
    const outlives = nowMs + ttlSeconds * 1000 < held.expiresAtMs;
    // `>=`: a lease granted in this same millisecond is reused (the platform's clock has nanoseconds).
    const notTooLong = nowMs + (ttlSeconds + reuse) * 1000 >= held.expiresAtMs;
    if (outlives && notTooLong && held.attached < config.maxObjectCount) return { reuse: true };
  }
  return { reuse: false, grantSeconds: ttlSeconds + reuse };
}

export class LeaseManager {
  private held: HeldLease | undefined;
  private granting: Promise<void> | undefined;
  private readonly config: LeaseManagerConfig;

  constructor(
    private readonly grant: (ttlSeconds: number) => Promise<number>,
    private readonly now: () => number = Date.now,
    config: Partial<LeaseManagerConfig> = {},
  ) {
    this.config = { reuseDurationSeconds: config.reuseDurationSeconds ?? DEFAULT_LEASE_REUSE_SECONDS, maxObjectCount: config.maxObjectCount ?? DEFAULT_LEASE_MAX_OBJECTS };
  }

  /** A lease id for one object that must live `ttlSeconds`. */
  async lease(ttlSeconds: number): Promise<number> {
    for (;;) {
      const started = this.now();
      const held = this.held;
      const decision = decideLease(held, ttlSeconds, started, this.config);
      if (decision.reuse) {
        if (!held) throw new Error("lease reuse decided without a lease");
        held.attached++;
        return held.id;
      }
      if (this.granting) {
        // Another write is granting: decide again on its lease.
        await this.granting.catch(() => {});
        continue;
      }
      let id = 0;
      this.granting = (async () => {
        id = await this.grant(decision.grantSeconds);
        this.held = { id, expiresAtMs: started + decision.grantSeconds * 1000, attached: 1 };
      })();
      try {
        await this.granting;
        return id;
      } finally {
        this.granting = undefined;
      }
    }
  }
}
