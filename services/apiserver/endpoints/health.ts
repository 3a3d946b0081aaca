/**
 * Health endpoints `/livez`, `/readyz`, `/healthz` and their per-check paths,
 * printed exactly as the platform prints them:
 *
 *   GET /readyz                 → 200 `ok`
 *   GET /readyz?verbose         → 200 `[+]ping ok\n...readyz check passed\n`
 *   GET /readyz?exclude=etcd    → `[+]etcd excluded: ok` in verbose output
 *   failure (always verbose)    → 500 `[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n`
 *   GET /readyz/etcd            → 200 `ok` or 500 `internal server error: <reason>\n`
 *
 * The evaluator (`evaluateHealth`, `evaluateSingleCheck`) is pure: it takes the
 * check results, the clock reading and the options. `HealthRegistry` runs the
 * named checks and owns start time and shutdown state; `healthRoutes` mounts
 * it on a hono app.
 *
 * Start-up and shutdown:
 * - `--livez-grace-period`: a livez check that fails within the grace period
 *   after start reports ok.
 * - `--shutdown-delay-duration`: once shutdown begins, the readyz check
 *   `shutdown` fails (`process is shutting down`) so load balancers drain the
 *   replica, while livez stays ok; after the delay the server stops taking
 *   requests (`HealthRegistry.shutdownPhase` says when; the whole sequence, with
 *   Retry-After answers and the watch grace period, is server/shutdown.ts).
 */
import type { Hono } from "hono";

export type HealthEndpoint = "livez" | "readyz" | "healthz";
export const HEALTH_ENDPOINTS: readonly HealthEndpoint[] = ["livez", "readyz", "healthz"];

/** The result of one check: `error` set means failed (the reason is never shown on the aggregate path). */
export interface CheckResult {
  name: string;
  error?: string;
}

export interface EvaluateOptions {
  endpoint: HealthEndpoint;
  /** The `verbose` query parameter is present. */
  verbose: boolean;
  /** `exclude` query values (repeatable). */
  exclude: readonly string[];
  /** Clock reading (ms) and process start (ms), for the livez grace period. */
  now: number;
  startedAt: number;
  livezGracePeriodMs: number;
}

export interface HealthResponse {
  status: 200 | 500;
  body: string;
  headers: Record<string, string>;
  /** Names of failed checks (empty on success). */
  failed: string[];
  /** Failure details for the server log (reasons are not in the body). */
  logOutput: string;
}

const TEXT_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/plain; charset=utf-8",
  "X-Content-Type-Options": "nosniff",
};

/** The platform's `%q` list: `"a","b"`. */
function formatQuoted(names: readonly string[]): string {
  return names.map((n) => JSON.stringify(n)).join(",");
}

function withinGrace(opts: Pick<EvaluateOptions, "endpoint" | "now" | "startedAt" | "livezGracePeriodMs">): boolean {
  return opts.endpoint === "livez" && opts.now - opts.startedAt < opts.livezGracePeriodMs;
}

/**
 * The response of `/<endpoint>` for these check results. Excluded checks need
 * no result (they are not run); unknown exclusions are reported as a warning.
 */
export function evaluateHealth(checks: readonly CheckResult[], opts: EvaluateOptions): HealthResponse {
  const excluded = new Set(opts.exclude);
  const grace = withinGrace(opts);
  let output = "";
  let logOutput = "";
  const failed: string[] = [];
  for (const check of checks) {
    if (excluded.has(check.name)) {
      excluded.delete(check.name);
      output += `[+]${check.name} excluded: ok\n`;
      continue;
    }
    if (check.error !== undefined && !grace) {
      output += `[-]${check.name} failed: reason withheld\n`;
      logOutput += `[-]${check.name} failed: ${check.error}\n`;
      failed.push(check.name);
    } else {
      output += `[+]${check.name} ok\n`;
    }
  }
  if (excluded.size > 0) {
    output += `warn: some health checks cannot be excluded: no matches for ${formatQuoted([...excluded].sort())}\n`;
  }
  if (failed.length > 0) {
    return { status: 500, body: `${output}${opts.endpoint} check failed\n`, headers: { ...TEXT_HEADERS }, failed, logOutput };
  }
  const body = opts.verbose ? `${output}${opts.endpoint} check passed\n` : "ok";
  return { status: 200, body, headers: { ...TEXT_HEADERS }, failed, logOutput };
}

/** The response of `/<endpoint>/<check>`: `ok`, or 500 with the reason. */
export function evaluateSingleCheck(check: CheckResult, opts: Pick<EvaluateOptions, "endpoint" | "now" | "startedAt" | "livezGracePeriodMs">): HealthResponse {
  if (check.error !== undefined && !withinGrace(opts)) {
    return {
      status: 500,
      body: `internal server error: ${check.error}\n`,
      headers: { ...TEXT_HEADERS },
      failed: [check.name],
      logOutput: `[-]${check.name} failed: ${check.error}\n`,
    };
  }
  return { status: 200, body: "ok", headers: { ...TEXT_HEADERS }, failed: [], logOutput: "" };
}

// ---------------------------------------------------------------------------
// Registry

/** A check passes by returning (or resolving); it fails by throwing (the message is the reason). */
export type HealthCheckFn = () => void | Promise<void>;

/**
 * `fn` run at most once per `intervalMs`; in between, the last outcome answers. The
 * platform's storage check is limited the same way (once per half its healthcheck
 * timeout, i.e. a second), so a load balancer probing /readyz every 250 ms does not cost
 * a quorum read of the store each time. Concurrent callers share one run.
 */
export function rateLimitedCheck(fn: () => Promise<unknown>, intervalMs: number, clock: () => number = Date.now): HealthCheckFn {
  let last: { at: number; failed: boolean; error: unknown } | undefined;
  let running: Promise<void> | undefined;
  return async () => {
    if (last === undefined || clock() - last.at >= intervalMs) {
      const at = clock();
      running ??= fn()
        .then(
          () => void (last = { at, failed: false, error: undefined }),
          (error: unknown) => void (last = { at, failed: true, error }),
        )
        .finally(() => (running = undefined));
      await running;
    }
    if (last?.failed) throw last.error;
  };
}

interface RegisteredCheck {
  name: string;
  fn: HealthCheckFn;
  endpoints: ReadonlySet<HealthEndpoint>;
}

export interface HealthRegistryOptions {
  /** Clock in ms (default `Date.now`). */
  clock?: () => number;
  /** Start time in ms (default: the clock at construction). */
  startedAt?: number;
  /** `--livez-grace-period` in ms (default 0). */
  livezGracePeriodMs?: number;
  /** `--shutdown-delay-duration` in ms (default 0). */
  shutdownDelayMs?: number;
  /** A check that has not answered after this long fails (default 30 s). */
  checkTimeoutMs?: number;
}

export type ShutdownPhase = "running" | "draining" | "stopped";

export const SHUTDOWN_CHECK = "shutdown";
export const SHUTTING_DOWN_MESSAGE = "process is shutting down";

export interface PostStartHook {
  readonly name: string;
  /** Marks the hook finished: its check passes from now on. */
  complete(): void;
  /** Records a failure reason (the check keeps failing). */
  fail(reason: string): void;
}

/** Named checks per endpoint, start time and shutdown state. */
export class HealthRegistry {
  private readonly checks: RegisteredCheck[] = [];
  private readonly clock: () => number;
  readonly startedAt: number;
  readonly livezGracePeriodMs: number;
  readonly shutdownDelayMs: number;
  private readonly checkTimeoutMs: number;
  private shutdownStartedAt: number | undefined;

  constructor(opts: HealthRegistryOptions = {}) {
    this.clock = opts.clock ?? Date.now;
    this.startedAt = opts.startedAt ?? this.clock();
    this.livezGracePeriodMs = opts.livezGracePeriodMs ?? 0;
    this.shutdownDelayMs = opts.shutdownDelayMs ?? 0;
    this.checkTimeoutMs = opts.checkTimeoutMs ?? 30_000;
  }

  /** A registry with the platform's default checks `ping` and `log` on all endpoints. */
  static withDefaults(opts: HealthRegistryOptions = {}, logCheck: HealthCheckFn = () => {}): HealthRegistry {
    const r = new HealthRegistry(opts);
    r.add("ping", () => {});
    r.add("log", logCheck);
    return r;
  }

  /** Adds a named check to the given endpoints (default: all three). Names are unique per endpoint. */
  add(name: string, fn: HealthCheckFn, endpoints: readonly HealthEndpoint[] = HEALTH_ENDPOINTS): this {
    if (!name || name === SHUTDOWN_CHECK || /[\s?#]/.test(name)) throw new Error(`invalid health check name ${JSON.stringify(name)}`);
    for (const e of endpoints) {
      if (this.checks.some((c) => c.name === name && c.endpoints.has(e))) throw new Error(`health check ${JSON.stringify(name)} already registered for /${e}`);
    }
    this.checks.push({ name, fn, endpoints: new Set(endpoints) });
    return this;
  }

  /** Registers `poststarthook/<name>` on all endpoints; it fails until `complete()` is called. */
  addPostStartHook(name: string): PostStartHook {
    let done = false;
    let reason = "not finished";
    this.add(`poststarthook/${name}`, () => {
      if (!done) throw new Error(reason);
    });
    return {
      name: `poststarthook/${name}`,
      complete: () => {
        done = true;
      },
      fail: (r: string) => {
        reason = r;
      },
    };
  }

  /** Starts graceful shutdown (idempotent): readyz fails from now on. */
  beginShutdown(at: number = this.clock()): void {
    this.shutdownStartedAt ??= at;
  }

  /** `running`; `draining` (readyz fails, still serving); `stopped` (the delay has passed: stop listening). */
  shutdownPhase(now: number = this.clock()): ShutdownPhase {
    if (this.shutdownStartedAt === undefined) return "running";
    return now - this.shutdownStartedAt < this.shutdownDelayMs ? "draining" : "stopped";
  }

  /** Check names of an endpoint in order (readyz ends with `shutdown`). */
  names(endpoint: HealthEndpoint): string[] {
    const names = this.checks.filter((c) => c.endpoints.has(endpoint)).map((c) => c.name);
    if (endpoint === "readyz") names.push(SHUTDOWN_CHECK);
    return names;
  }

  private async runOne(check: RegisteredCheck): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`check timed out after ${this.checkTimeoutMs}ms`)), this.checkTimeoutMs);
      });
      await Promise.race([Promise.resolve().then(check.fn), timeout]);
      return { name: check.name };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return { name: check.name, error: message || "check failed" };
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  private shutdownResult(): CheckResult {
    return this.shutdownStartedAt === undefined ? { name: SHUTDOWN_CHECK } : { name: SHUTDOWN_CHECK, error: SHUTTING_DOWN_MESSAGE };
  }

  /** Runs the endpoint's checks, except the excluded ones, concurrently; results in registration order. */
  async run(endpoint: HealthEndpoint, exclude: readonly string[] = []): Promise<CheckResult[]> {
    const skip = new Set(exclude);
    const results = await Promise.all(
      this.checks.filter((c) => c.endpoints.has(endpoint)).map((c) => (skip.has(c.name) ? Promise.resolve({ name: c.name }) : this.runOne(c))),
    );
    if (endpoint === "readyz") results.push(this.shutdownResult());
    return results;
  }

  /** The response of `/<endpoint>`. */
  async respond(endpoint: HealthEndpoint, query: { verbose: boolean; exclude: readonly string[] }): Promise<HealthResponse> {
    const results = await this.run(endpoint, query.exclude);
    return evaluateHealth(results, {
      endpoint,
      verbose: query.verbose,
      exclude: query.exclude,
      now: this.clock(),
      startedAt: this.startedAt,
      livezGracePeriodMs: this.livezGracePeriodMs,
    });
  }

  /** The response of `/<endpoint>/<name>`, or undefined when the endpoint has no such check. */
  async respondSingle(endpoint: HealthEndpoint, name: string): Promise<HealthResponse | undefined> {
    let result: CheckResult;
    if (endpoint === "readyz" && name === SHUTDOWN_CHECK) result = this.shutdownResult();
    else {
      const check = this.checks.find((c) => c.name === name && c.endpoints.has(endpoint));
      if (!check) return undefined;
      result = await this.runOne(check);
    }
    return evaluateSingleCheck(result, { endpoint, now: this.clock(), startedAt: this.startedAt, livezGracePeriodMs: this.livezGracePeriodMs });
  }
}

// ---------------------------------------------------------------------------
// Routes

export interface HealthRoutesOptions {
  /** Receives failure details (the body withholds reasons). */
  onFailure?: (endpoint: HealthEndpoint, response: HealthResponse) => void;
}

/** Mounts `/livez`, `/readyz`, `/healthz` and `/<endpoint>/<check>` (GET and HEAD). */
export function healthRoutes(app: Hono, registry: HealthRegistry, opts: HealthRoutesOptions = {}): void {
  const send = (response: HealthResponse): Response => new Response(response.body, { status: response.status, headers: response.headers });
  for (const endpoint of HEALTH_ENDPOINTS) {
    app.get(`/${endpoint}`, async (c) => {
      const url = new URL(c.req.url);
      const response = await registry.respond(endpoint, { verbose: url.searchParams.has("verbose"), exclude: url.searchParams.getAll("exclude") });
      if (response.status !== 200) opts.onFailure?.(endpoint, response);
      return send(response);
    });
    app.get(`/${endpoint}/:check{.+}`, async (c) => {
      const prefix = `/${endpoint}/`;
      const path = new URL(c.req.url).pathname;
      let name: string;
      try {
        name = decodeURIComponent(path.slice(path.indexOf(prefix) + prefix.length));
      } catch {
        return c.notFound();
      }
      const response = await registry.respondSingle(endpoint, name);
      if (!response) return c.notFound();
      if (response.status !== 200) opts.onFailure?.(endpoint, response);
      return send(response);
    });
  }
}
