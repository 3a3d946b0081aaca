/**
 * Lease-based leader election, as the platform's client library does it.
 *
 * Contract:
 * - The lock is a coordination/v1 Lease `<namespace>/<name>`. Candidates read it every
 *   retry period; a holder's claim is valid until `leaseDurationSeconds` (the record's
 *   own value) after the moment THIS candidate saw the record change, by its own clock:
 *   clocks of different machines are never compared.
 * - Acquire and renew are one read then one write carrying the read `resourceVersion`
 *   (optimistic concurrency): of two candidates writing at once, one gets a Conflict.
 *   A new holder increments `leaseTransitions` and sets `acquireTime`; a renewal keeps both.
 * - The leader renews every retry period; when no renewal succeeds within the renew
 *   deadline it has lost the lease: `onStoppedLeading` runs (the controller manager
 *   exits there, as the platform's does) and the elector stops.
 * - `release()` (graceful shutdown) writes an empty holder with a 1 s duration, so a
 *   standby takes over at its next try instead of after the lease duration.
 * - Followers poll at a period jittered downwards within [0.8, 1] × retry period and
 *   also wake at the moment the observed lease expires, so a dead leader is replaced
 *   within lease duration + retry period of its last renewal observed by the follower.
 *
 * `decideLeaseAction` is the pure core (observed lease + previous observation + now →
 * create / update / wait); `LeaderElector` is the shell around an ObjectClient.
 */
import { isStatusError } from "../api/status.ts";
import type { ApiObject, ObjectClient, ResourceRef } from "./object-client.ts";

/** The platform's client-library defaults (the controller manager's flag defaults). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** The factor the platform's library applies to the retry period when validating the renew deadline. */
export const JITTER_FACTOR = 1.2;

export interface LeaseRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

/** The last record seen and the local time at which it was first seen in that form. */
export interface LeaseObservation {
  record: LeaseRecord;
  observedAtMs: number;
}

export type LeaseDecision =
  | { action: "create"; record: LeaseRecord }
  | { action: "update"; record: LeaseRecord; acquiring: boolean }
  | { action: "wait"; holder: string; expiresAtMs: number };

export interface LeaseDecisionInput {
  /** The Lease as read now; undefined when it does not exist. */
  current: LeaseRecord | undefined;
  previous: LeaseObservation | undefined;
  nowMs: number;
  identity: string;
  leaseDurationMs: number;
}

/** MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function sameRecord(a: LeaseRecord, b: LeaseRecord): boolean {
  return (
    a.holderIdentity === b.holderIdentity &&
    a.leaseDurationSeconds === b.leaseDurationSeconds &&
    a.acquireTime === b.acquireTime &&
    a.renewTime === b.renewTime &&
    a.leaseTransitions === b.leaseTransitions
  );
}

/** The pure decision: what a candidate does with what it just read. */
export function decideLeaseAction(input: LeaseDecisionInput): { decision: LeaseDecision; observation: LeaseObservation | undefined } {
  const { current, previous, nowMs, identity } = input;
  const durationSeconds = Math.max(1, Math.ceil(input.leaseDurationMs / 1000));
  const now = microTime(nowMs);
  if (!current) {
    const record: LeaseRecord = { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 };
    return { decision: { action: "create", record }, observation: undefined };
  }
  const observation: LeaseObservation = previous && sameRecord(previous.record, current) ? previous : { record: current, observedAtMs: nowMs };
  const held = current.holderIdentity !== "" && current.holderIdentity !== identity;
  const expiresAtMs = observation.observedAtMs + current.leaseDurationSeconds * 1000;
  if (held && expiresAtMs > nowMs) return { decision: { action: "wait", holder: current.holderIdentity, expiresAtMs }, observation };
  const renewing = current.holderIdentity === identity;
  const record: LeaseRecord = {
    holderIdentity: identity,
    leaseDurationSeconds: durationSeconds,
    acquireTime: renewing ? current.acquireTime : now,
    renewTime: now,
    leaseTransitions: renewing ? current.leaseTransitions : current.leaseTransitions + 1,
  };
  return { decision: { action: "update", record, acquiring: !renewing }, observation };
}

export class LeaderElectionConfigError extends Error {}

/** The platform library's checks of the three durations. */
export function validateLeaderElectionTimes(leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number): void {
  if (!(leaseDurationMs > 0)) throw new LeaderElectionConfigError("leaseDuration must be greater than zero");
  if (!(renewDeadlineMs > 0)) throw new LeaderElectionConfigError("renewDeadline must be greater than zero");
  if (!(retryPeriodMs > 0)) throw new LeaderElectionConfigError("retryPeriod must be greater than zero");
  if (leaseDurationMs <= renewDeadlineMs) throw new LeaderElectionConfigError("leaseDuration must be greater than renewDeadline");
  if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs) throw new LeaderElectionConfigError("renewDeadline must be greater than retryPeriod*JitterFactor");
}

export interface LeaderElectorOptions {
  client: ObjectClient;
  /** The wire name of the coordination group (from the naming profile). */
  coordinationGroup: string;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void | Promise<void>;
  /** Called once when a held lease is lost (not after `release()`). */
  onStoppedLeading: () => void;
  onNewLeader?: (identity: string) => void;
  log?: (level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;
  /** Clock (for tests). */
  now?: () => number;
}

function recordOf(lease: ApiObject): LeaseRecord {
  const spec = (lease.spec ?? {}) as Partial<LeaseRecord>;
  return {
    holderIdentity: spec.holderIdentity ?? "",
    leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
    acquireTime: spec.acquireTime,
    renewTime: spec.renewTime,
    leaseTransitions: spec.leaseTransitions ?? 0,
  };
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), Math.max(1, ms));
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export class LeaderElector {
  private readonly leases: ResourceRef;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: () => number;
  private observation: LeaseObservation | undefined;
  private resourceVersion: string | undefined;
  private leading = false;
  private stopped = false;
  private lastLeader = "";
  /** Local time of the last successful acquire or renewal. */
  private lastRenewMs = 0;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: LeaderElectorOptions) {
    this.leaseDurationMs = opts.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = opts.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    validateLeaderElectionTimes(this.leaseDurationMs, this.renewDeadlineMs, this.retryPeriodMs);
    this.leases = { group: opts.coordinationGroup, version: "v1", resource: "leases" };
    this.now = opts.now ?? Date.now;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** The holder last observed (our own identity while leading). */
  get leader(): string {
    return this.lastLeader;
  }

  get lockDescription(): string {
    return `${this.opts.namespace}/${this.opts.name}`;
  }

  /** Starts campaigning in the background; resolves when the loop ends (stopped or lost). */
  run(): Promise<void> {
    this.loop ??= this.campaign();
    return this.loop;
  }

  /**
   * The health check of the platform's library: healthy unless this candidate leads and
   * has not renewed for longer than the lease duration plus `toleranceMs`.
   */
  check(toleranceMs: number): string | undefined {
    if (!this.leading) return undefined;
    if (this.now() - this.lastRenewMs > this.leaseDurationMs + toleranceMs) return `failed election to renew leadership on lease ${this.opts.name}`;
    return undefined;
  }

  /** Stops campaigning; a leader gives the lease up (empty holder, 1 s duration). */
  async release(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    const wasLeading = this.leading;
    this.leading = false;
    await this.loop?.catch(() => {});
    if (!wasLeading || !this.observation) return;
    const now = microTime(this.now());
    const spec: LeaseRecord = { holderIdentity: "", leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: this.observation.record.leaseTransitions };
    try {
      await withDeadline(this.write(spec, false), this.renewDeadlineMs);
      this.opts.log?.("info", "released the lease", { lease: this.lockDescription });
    } catch (err) {
      this.opts.log?.("warn", "could not release the lease", { lease: this.lockDescription, error: String(err) });
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, Math.max(0, ms));
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private pollInterval(): number {
    return this.retryPeriodMs * (0.8 + 0.2 * Math.random());
  }

  private async campaign(): Promise<void> {
    this.opts.log?.("info", "attempting to acquire leader lease", { lease: this.lockDescription, identity: this.opts.identity });
    while (!this.stopped) {
      const outcome = await this.tryAcquireOrRenew().catch((err: unknown) => {
        this.opts.log?.("warn", "error retrieving or writing the lease", { lease: this.lockDescription, error: String(err) });
        return undefined;
      });
      if (this.stopped) return;
      if (outcome === true) break;
      const next = this.pollInterval();
      const expiresIn = typeof outcome === "number" ? outcome - this.now() + 5 : Infinity;
      await this.sleep(Math.min(next, expiresIn));
    }
    if (this.stopped) return;
    this.leading = true;
    this.opts.log?.("info", "successfully acquired lease", { lease: this.lockDescription, identity: this.opts.identity });
    await this.opts.onStartedLeading();
    await this.renewLoop();
  }

  private async renewLoop(): Promise<void> {
    while (!this.stopped) {
      await this.sleep(this.retryPeriodMs);
      if (this.stopped) return;
      const roundStart = this.now();
      let renewed = false;
      while (!this.stopped && !renewed) {
        const left = roundStart + this.renewDeadlineMs - this.now();
        if (left <= 0) break;
        renewed = await withDeadline(this.tryAcquireOrRenew(), left).then(
          (r) => r === true,
          (err: unknown) => {
            this.opts.log?.("warn", "failed to renew the lease", { lease: this.lockDescription, error: String(err) });
            return false;
          },
        );
        if (!renewed && !this.stopped) {
          const wait = Math.min(this.retryPeriodMs, roundStart + this.renewDeadlineMs - this.now());
          if (wait > 0) await this.sleep(wait);
        }
      }
      if (this.stopped) return;
      if (!renewed) {
        this.leading = false;
        this.stopped = true;
        this.opts.log?.("error", "failed to renew lease: timed out waiting for the condition", { lease: this.lockDescription });
        this.opts.onStoppedLeading();
        return;
      }
    }
  }

  /** true when we hold the lease now; a number (the observed expiry) when another holder's claim is valid. */
  private async tryAcquireOrRenew(): Promise<true | number | false> {
    let current: ApiObject | undefined;
    try {
      current = await this.opts.client.get(this.leases, this.opts.name, { namespace: this.opts.namespace });
    } catch (err) {
      if (!isStatusError(err, "NotFound")) throw err;
    }
    const { decision, observation } = decideLeaseAction({
      current: current ? recordOf(current) : undefined,
      previous: this.observation,
      nowMs: this.now(),
      identity: this.opts.identity,
      leaseDurationMs: this.leaseDurationMs,
    });
    this.observation = observation;
    this.resourceVersion = current?.metadata.resourceVersion;
    if (decision.action === "wait") {
      this.noteLeader(decision.holder);
      return decision.expiresAtMs;
    }
    try {
      await this.write(decision.record, decision.action === "create");
    } catch (err) {
      if (isStatusError(err, "Conflict") || isStatusError(err, "AlreadyExists")) return false;
      throw err;
    }
    this.observation = { record: decision.record, observedAtMs: this.now() };
    this.lastRenewMs = this.now();
    this.noteLeader(this.opts.identity);
    return true;
  }

  private async write(record: LeaseRecord, create: boolean): Promise<void> {
    const lease: ApiObject = {
      apiVersion: `${this.opts.coordinationGroup}/v1`,
      kind: "Lease",
      metadata: { name: this.opts.name, namespace: this.opts.namespace, ...(create ? {} : { resourceVersion: this.resourceVersion }) },
      spec: { ...record },
    };
    const written = create ? await this.opts.client.create(this.leases, lease) : await this.opts.client.update(this.leases, lease);
    this.resourceVersion = written.metadata.resourceVersion;
  }

  private noteLeader(holder: string): void {
    if (holder === this.lastLeader) return;
    this.lastLeader = holder;
    if (holder) {
      this.opts.log?.("info", "new leader elected", { lease: this.lockDescription, leader: holder });
      this.opts.onNewLeader?.(holder);
    }
  }
}
