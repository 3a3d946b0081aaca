/**
 * The encryption at rest of a replica: the configuration file
 * (`--encryption-provider-config`), reloaded when it changes if
 * `--encryption-provider-config-automatic-reload` is set (a bad new file is reported
 * and the current configuration kept), the store client and revision feed wrapped to
 * encrypt and decrypt, and the metrics.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { MetricsRegistry } from "../../../../shared/observability/metrics.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { KvStore, RevisionFeed } from "../kv.ts";
import { encryptionConfigFromObject, ResourceTransformers } from "./config.ts";
import { decryptingFeed, EncryptedKv, type UnreadableValue } from "./encrypted-kv.ts";
import { declareEncryptionMetrics, type EncryptionMetrics } from "./metrics.ts";
import type { ValueTransformer } from "./transformer.ts";
import { parse as parseYaml } from "yaml";

export interface EncryptionOptions {
  configFile: string;
  automaticReload: boolean;
  /** How often the file is checked for changes (default one minute, the platform's). */
  reloadIntervalMs?: number;
}

export interface Encryption {
  kv: EncryptedKv;
  feed: RevisionFeed;
  /** Declares the metrics once the replica's registry exists. */
  attachMetrics(registry: MetricsRegistry): void;
  /** Re-reads the file now; false when the new configuration was refused. */
  reload(): Promise<boolean>;
  /**
   * The health checks of the KMS plugins, as the platform names them: one
   * `kms-providers` check with automatic reload, else `kms-provider-<i>` each.
   */
  healthChecks(): Array<[string, () => Promise<void>]>;
  close(): void;
}

type Log = (level: "warn" | "error", msg: string, fields: Record<string, unknown>) => void;

/** Loads the configuration (a bad file throws the start-up error) and wraps the store client and the feed. */
export function openEncryption(profile: PlatformProfile, opts: EncryptionOptions, kv: KvStore, feed: RevisionFeed, log: Log = () => {}): Encryption {
  let metrics: EncryptionMetrics | undefined;
  const observe = {
    transform: (type: "to_storage" | "from_storage", kind: string, ok: boolean) => metrics?.transform(type, kind, ok),
    kmsCall: (provider: string, method: string, code: string, seconds: number) => metrics?.kmsCall(provider, method, code, seconds),
  };
  const load = (text: string): ResourceTransformers => {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw new Error(`error while parsing file: ${opts.configFile}: ${(err as Error).message}`, { cause: err });
    }
    try {
      return new ResourceTransformers(encryptionConfigFromObject(doc, profile, observe.kmsCall), profile, observe.transform);
    } catch (err) {
      throw new Error(`error while parsing file: resources: ${opts.configFile}: ${(err as Error).message}`, { cause: err });
    }
  };
  let text = readFileSync(opts.configFile, "utf8");
  let current = load(text);
  const lookup = {
    forKey: (key: string): ValueTransformer | undefined => current.forKey(key),
    close: () => current.close(),
  };
  const report = (u: UnreadableValue) => log("error", "a stored value could not be decrypted", { key: u.key, revision: u.revision, error: u.error });
  const encryptedKv = new EncryptedKv(kv, lookup, report);
  const reload = async (): Promise<boolean> => {
    let next: string;
    try {
      next = readFileSync(opts.configFile, "utf8");
    } catch (err) {
      log("error", "encryption configuration could not be read; keeping the current one", { error: (err as Error).message });
      metrics?.reload(false);
      return false;
    }
    if (next === text) return true;
    try {
      const loaded = load(next);
      const previous = current;
      current = loaded;
      text = next;
      previous.close();
      metrics?.reload(true);
      return true;
    } catch (err) {
      log("error", "new encryption configuration refused; keeping the current one", { error: (err as Error).message });
      metrics?.reload(false);
      return false;
    }
  };
  const timer = opts.automaticReload ? setInterval(() => void reload(), opts.reloadIntervalMs ?? 60_000) : undefined;
  timer?.unref();
  return {
    kv: encryptedKv,
    feed: decryptingFeed(feed, lookup, report),
    attachMetrics(registry) {
      metrics ??= declareEncryptionMetrics(registry, profile.id, createHash("sha256").update(`${process.pid}:${Date.now()}`).digest("hex").slice(0, 16));
    },
    reload,
    healthChecks() {
      const statusOf = async (i: number | undefined) => {
        const kms = current.kmsProviders();
        for (const p of i === undefined ? kms : [kms[i]]) if (p) await p.status();
      };
      if (opts.automaticReload) return [["kms-providers", () => statusOf(undefined)]];
      return current.kmsProviders().map((_, i): [string, () => Promise<void>] => [`kms-provider-${i}`, () => statusOf(i)]);
    },
    close() {
      if (timer) clearInterval(timer);
      lookup.close();
    },
  };
}
