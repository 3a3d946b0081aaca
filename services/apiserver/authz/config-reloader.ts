/**
 * Keeps the authorizer chain of an AuthorizationConfiguration file current: the file is
 * re-read when its directory changes (editors and config maps replace files rather than
 * write them) and every `intervalMs`; an unchanged text is not rebuilt. A file that does
 * not read, parse or validate keeps the previous chain; the failure is logged and counted
 * in `status()`. The first load (`start`) must succeed: a broken file at start is a
 * start-up error.
 */
import { watch as fsWatch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { parseAuthorizationConfiguration } from "./options.ts";
import type { Authorizer } from "./types.ts";
import { authorizerFromConfig, type ModeState } from "./modes.ts";

export const CONFIG_RELOAD_INTERVAL_MS = 60_000;

export interface ReloadStatus {
  /** Successful (re)loads of the configuration file. */
  loads: number;
  lastLoadedAt?: number;
  /** The error of the latest failed reload, cleared by a successful one. */
  lastError?: string;
  failures: number;
}

export interface ConfigReloaderOptions {
  path: string;
  profile: PlatformProfile;
  state: ModeState;
  /** Receives the configured authorizers of every successful load, in file order. */
  onLoad: (authorizers: Authorizer[]) => void;
  intervalMs?: number;
  now?: () => number;
  log: LogFn;
}

export class AuthorizationConfigReloader {
  readonly path: string;
  private readonly state: ReloadStatus = { loads: 0, failures: 0 };
  private lastText: string | undefined;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly o: ConfigReloaderOptions) {
    this.path = resolve(o.path);
  }

  /** Loads the file (throwing on any error), then watches it and polls it. */
  async start(): Promise<void> {
    await this.load(true);
    const interval = setInterval(() => void this.reload(false), this.o.intervalMs ?? CONFIG_RELOAD_INTERVAL_MS);
    interval.unref();
    this.stops.push(() => clearInterval(interval));
    let watcher: FSWatcher | undefined;
    let debounce: NodeJS.Timeout | undefined;
    const watchFailed = (err: unknown) => this.o.log("warn", "authorization configuration watch failed; relying on periodic reload", { error: String(err) });
    try {
      watcher = fsWatch(dirname(this.path), (_event, file) => {
        if (file !== null && file !== basename(this.path)) return;
        if (debounce) clearTimeout(debounce);
        debounce = setTimeout(() => void this.reload(false), 50);
        debounce.unref();
      });
      watcher.on("error", watchFailed);
      watcher.unref();
    } catch (err) {
      watchFailed(err);
    }
    this.stops.push(() => {
      if (debounce) clearTimeout(debounce);
      watcher?.close();
    });
  }

  /** Re-reads the file (`force`: rebuild even when unchanged); false when it was rejected. */
  async reload(force: boolean): Promise<boolean> {
    try {
      await this.load(force);
      this.o.log("info", "authorization configuration loaded", { path: this.path, loads: this.state.loads });
      return true;
    } catch (err) {
      this.state.failures++;
      this.state.lastError = err instanceof Error ? err.message : String(err);
      this.o.log("error", "authorization configuration reload failed; keeping the previous authorizers", { path: this.path, error: this.state.lastError });
      return false;
    }
  }

  status(): ReloadStatus {
    return { ...this.state };
  }

  stop(): void {
    for (const s of this.stops.splice(0).reverse()) s();
  }

  private async load(force: boolean): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      throw new Error(`reading authorization configuration ${this.path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (!force && text === this.lastText) return;
    const parsed = parseAuthorizationConfiguration(text, this.o.profile);
    const authorizers: Authorizer[] = [];
    for (const a of parsed.authorizers) authorizers.push(await authorizerFromConfig(this.o.state, a, dirname(this.path)));
    this.o.onLoad(authorizers);
    this.lastText = text;
    this.state.loads++;
    this.state.lastLoadedAt = (this.o.now ?? Date.now)();
    delete this.state.lastError;
  }
}
