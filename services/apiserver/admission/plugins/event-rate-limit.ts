/**
 * EventRateLimit (default off): token buckets on core Event writes (create,
 * update; dry runs are not counted), configured by the plugin's Configuration
 * `limits: [{type: Server|Namespace|User|SourceAndObject, qps, burst, cacheSize}]`.
 * A request over any limit is a 429 `Too many requests: limit reached on type
 * <type> for key <key>`. Buckets are per replica, as on the platform (each API
 * server enforces its own limits).
 */
import { statusError } from "../../../../shared/api/status.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginFactory } from "../interfaces.ts";
import { arr, isResource, obj, str } from "./util.ts";
import { TokenBucket } from "../../../../shared/ratelimit/token-bucket.ts";

export const EVENT_RATE_LIMIT_PLUGIN = "EventRateLimit";
const LIMIT_TYPES = ["Server", "Namespace", "User", "SourceAndObject"] as const;
type LimitType = (typeof LIMIT_TYPES)[number];
const DEFAULT_CACHE_SIZE = 4096;

export interface Limit {
  type: LimitType;
  qps: number;
  burst: number;
  cacheSize: number;
}

/** The limits of the plugin configuration; throws with the field at fault. */
export function parseLimits(config: JsonObject | undefined): Limit[] {
  const limits = arr(config?.limits);
  if (limits.length === 0) throw new Error("limits: Required value: must not be empty");
  return limits.map((l, i) => {
    const o = obj(l) ?? {};
    const type = o.type as LimitType;
    if (!LIMIT_TYPES.includes(type)) throw new Error(`limits[${i}].type: Unsupported value: ${JSON.stringify(o.type)}: supported values: ${LIMIT_TYPES.map((t) => JSON.stringify(t)).join(", ")}`);
    const qps = Number(o.qps);
    const burst = Number(o.burst);
    if (!Number.isInteger(qps) || qps <= 0) throw new Error(`limits[${i}].qps: Invalid value: ${JSON.stringify(o.qps)}: must be positive`);
    if (!Number.isInteger(burst) || burst <= 0) throw new Error(`limits[${i}].burst: Invalid value: ${JSON.stringify(o.burst)}: must be positive`);
    const cacheSize = o.cacheSize === undefined ? DEFAULT_CACHE_SIZE : Number(o.cacheSize);
    if (!Number.isInteger(cacheSize) || cacheSize <= 0) throw new Error(`limits[${i}].cacheSize: Invalid value: ${JSON.stringify(o.cacheSize)}: must be positive`);
    return { type, qps, burst, cacheSize };
  });
}

export function keyOf(type: LimitType, a: Pick<Attributes, "namespace" | "userInfo" | "object">): string {
  switch (type) {
    case "Server":
      return "";
    case "Namespace":
      return a.namespace;
    case "User":
      return a.userInfo.username;
    case "SourceAndObject": {
      const ev = a.object ?? {};
      const src = obj(ev.source) ?? {};
      const io = obj(ev.involvedObject) ?? {};
      return [src.component, src.host, io.kind, io.namespace, io.name, io.uid, io.apiVersion].map(str).join("");
    }
  }
}

/** One limit: buckets by key, least recently used evicted beyond cacheSize. */
export class LimitEnforcer {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    readonly limit: Limit,
    private readonly now: () => number = Date.now,
  ) {}

  accept(key: string): boolean {
    let b = this.buckets.get(key);
    if (b) this.buckets.delete(key);
    else b = new TokenBucket(this.limit.qps, this.limit.burst, this.now());
    this.buckets.set(key, b);
    if (this.buckets.size > this.limit.cacheSize) this.buckets.delete(this.buckets.keys().next().value as string);
    return b.tryAccept(this.now());
  }
}

export const eventRateLimitPlugin: PluginFactory = (ctx): AdmissionPlugin => {
  const enforcers = parseLimits(ctx.config).map((l) => new LimitEnforcer(l));
  return {
    name: EVENT_RATE_LIMIT_PLUGIN,
    handles: (op) => op === "CREATE" || op === "UPDATE",
    validate(a) {
      if (!isResource(a, "", "events") || a.dryRun || !isObject(a.object)) return;
      const errors: string[] = [];
      for (const e of enforcers) {
        const key = keyOf(e.limit.type, a);
        if (!e.accept(key)) errors.push(`limit reached on type ${e.limit.type} for key ${key}`);
      }
      if (errors.length === 0) return;
      const text = errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
      throw statusError({ code: 429, reason: "TooManyRequests", message: `Too many requests: ${text}` });
    },
  };
};
