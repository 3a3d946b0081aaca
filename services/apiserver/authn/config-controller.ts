/**
 * The authentication configuration file at run time: loaded at start (an
 * invalid file stops the server), then polled; a changed file that validates
 * replaces the JWT authenticators and the anonymous settings at once, an
 * invalid one is logged and the previous configuration stays. Every reload
 * attempt sets `apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds`
 * and counts in `..._automatic_reloads_total` (label `status` = success|failure).
 */
import { createHash } from "node:crypto";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { readFile } from "node:fs/promises";
import type { Counter, Gauge } from "prom-client";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { parseAuthenticationConfig, type AnonymousConfig, type AuthenticationConfiguration, type ValidationContext } from "./authn-config.ts";
import { unionTokenAuthenticator } from "./chain.ts";
import { JwtAuthenticator, type KeySource } from "./jwt-authenticator.ts";
import type { TokenAuthenticator } from "./types.ts";

export const RELOAD_TIMESTAMP_METRIC = "apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds";
export const RELOADS_TOTAL_METRIC = "apiserver_authentication_config_controller_automatic_reloads_total";
export const LAST_CONFIG_INFO_METRIC = "apiserver_authentication_config_controller_last_config_info";

interface ReloadMetrics {
  timestamp: Gauge<"status" | "apiserver_id_hash">;
  total: Counter<"status" | "apiserver_id_hash">;
  info: Gauge<"apiserver_id_hash" | "hash">;
}

const declared = new WeakMap<MetricsRegistry, ReloadMetrics>();

/** Declares the reload metrics once per registry. */
export function reloadMetrics(m: MetricsRegistry): ReloadMetrics {
  let r = declared.get(m);
  if (!r) {
    r = {
      timestamp: m.gauge({ name: RELOAD_TIMESTAMP_METRIC, help: "Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.", labelNames: ["status", "apiserver_id_hash"], stabilityLevel: "ALPHA" }),
      total: m.counter({ name: RELOADS_TOTAL_METRIC, help: "Total number of automatic reloads of authentication configuration split by status and apiserver identity.", labelNames: ["status", "apiserver_id_hash"], stabilityLevel: "ALPHA" }),
      info: m.gauge({ name: LAST_CONFIG_INFO_METRIC, help: "Information about the last applied authentication configuration with hash as label, split by apiserver identity.", labelNames: ["apiserver_id_hash", "hash"], stabilityLevel: "ALPHA" }),
    };
    declared.set(m, r);
  }
  return r;
}

export function apiserverIdHash(id: string): string {
  return `sha256:${createHash("sha256").update(id).digest("hex")}`;
}

export interface ActiveConfig {
  config: AuthenticationConfiguration;
  tokens: TokenAuthenticator;
  anonymous?: AnonymousConfig;
  hash: string;
}

export interface ConfigControllerOptions extends ValidationContext {
  path: string;
  /** Poll period; default one minute. */
  intervalMs?: number;
  metrics?: MetricsRegistry;
  apiserverId?: string;
  log?: LogFn;
  /** Key sources per issuer (tests); default: discovery over HTTPS. */
  keySource?: (issuer: string) => KeySource | undefined;
  now?: () => Date;
}

export function buildFromConfig(config: AuthenticationConfiguration, o: Pick<ConfigControllerOptions, "keySource" | "now">, hash = ""): ActiveConfig {
  const jwts = config.jwt.map((j) => new JwtAuthenticator(j, { keys: o.keySource?.(j.issuer.url), now: o.now }));
  return { config, tokens: unionTokenAuthenticator("jwt", jwts), anonymous: config.anonymous, hash };
}

export class AuthenticationConfigController {
  private active?: ActiveConfig;
  private timer?: NodeJS.Timeout;
  private readonly metrics?: ReloadMetrics;
  private readonly idHash: string;
  private reloading?: Promise<boolean>;

  constructor(private readonly o: ConfigControllerOptions) {
    this.metrics = o.metrics ? reloadMetrics(o.metrics) : undefined;
    this.idHash = apiserverIdHash(o.apiserverId ?? "apiserver");
  }

  private async load(): Promise<{ text: string; hash: string }> {
    const text = await readFile(this.o.path, "utf8");
    return { text, hash: createHash("sha256").update(text).digest("hex") };
  }

  private build(text: string, hash: string): ActiveConfig {
    const config = parseAuthenticationConfig(text, this.o, `authentication configuration ${this.o.path}`);
    return buildFromConfig(config, this.o, hash);
  }

  /** First load: throws when the file is missing or invalid. */
  async start(): Promise<void> {
    const { text, hash } = await this.load();
    this.active = this.build(text, hash);
    this.metrics?.info.set({ apiserver_id_hash: this.idHash, hash: `sha256:${hash}` }, 1);
    const every = this.o.intervalMs ?? 60_000;
    if (every > 0) {
      this.timer = setInterval(() => void this.reload(), every);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  get current(): ActiveConfig {
    if (!this.active) throw new Error("authentication configuration is not loaded");
    return this.active;
  }

  /** Reads the file again; true when a changed, valid configuration was applied. */
  reload(): Promise<boolean> {
    if (!this.reloading) {
      this.reloading = this.doReload().finally(() => {
        this.reloading = undefined;
      });
    }
    return this.reloading;
  }

  private record(status: "success" | "failure"): void {
    if (!this.metrics) return;
    const labels = { status, apiserver_id_hash: this.idHash };
    this.metrics.timestamp.set(labels, Date.now() / 1000);
    this.metrics.total.inc(labels);
  }

  private async doReload(): Promise<boolean> {
    let loaded;
    try {
      loaded = await this.load();
    } catch (err) {
      this.o.log?.("warn", "authentication configuration could not be read", { path: this.o.path, error: (err as Error).message });
      this.record("failure");
      return false;
    }
    if (this.active && loaded.hash === this.active.hash) return false;
    try {
      this.active = this.build(loaded.text, loaded.hash);
    } catch (err) {
      this.o.log?.("warn", "authentication configuration is invalid; keeping the previous one", { path: this.o.path, error: (err as Error).message });
      this.record("failure");
      return false;
    }
    this.o.log?.("info", "authentication configuration reloaded", { path: this.o.path });
    this.record("success");
    this.metrics?.info.reset();
    this.metrics?.info.set({ apiserver_id_hash: this.idHash, hash: `sha256:${loaded.hash}` }, 1);
    return true;
  }
}
