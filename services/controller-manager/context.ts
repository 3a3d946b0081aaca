/**
 * What every controller is given: the API client, the shared informers (one watch per
 * resource for all controllers), the naming profile, the settings from the flags,
 * metrics for its work queue, and `recordAction`, the one log line per write a
 * controller attempts (`controller action`, with the controller, verb, object and the
 * instance's identity), from which a failover test can tell that no object was acted
 * on by two instances.
 */
import type { InformerFactory } from "../../shared/client/informer.ts";
import type { ObjectClient, PathGetter, ResourceRef } from "../../shared/client/object-client.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import type { QueueMetrics } from "../../shared/client/work-queue.ts";
import type { ControllerManagerMetrics } from "./metrics.ts";

/** Settings of the controllers that have flags; each has the platform's default. */
export interface ControllerSettings {
  /** `--root-ca-file`: the PEM bundle published as `ca.crt` in every namespace. */
  rootCaPem?: string;
  /** `--cluster-signing-cert-file` / `--cluster-signing-key-file` (PEM contents). */
  clusterSigningCertPem?: string;
  clusterSigningKeyPem?: string;
  /** `--cluster-signing-duration` (default 8760h). */
  clusterSigningDurationMs?: number;
  /** `--node-monitor-grace-period` (default 50s) and `--node-monitor-period` (default 5s). */
  nodeMonitorGracePeriodMs?: number;
  nodeMonitorPeriodMs?: number;
  /** `--node-eviction-rate`, `--secondary-node-eviction-rate`, `--unhealthy-zone-threshold`, `--large-cluster-size-threshold`. */
  nodeEviction?: { evictionRate: number; secondaryEvictionRate: number; unhealthyZoneThreshold: number; largeClusterSizeThreshold: number };
  /** `--resource-quota-sync-period` (default 5m). */
  resourceQuotaSyncPeriodMs?: number;
  /** How old a ServiceCIDR's deletion must be before its finalizer goes (no flag; the platform's 10 s). */
  serviceCidrDeletionGracePeriodMs?: number;
  /** `--legacy-service-account-token-clean-up-period` (default one year). */
  legacyTokenCleanUpPeriodMs?: number;
  /** How often the legacy token cleaner looks at the tokens (no flag; the platform's 24 h). */
  legacyTokenCleanerSyncIntervalMs?: number;
  /** The legacy token cleaner's clock, ms since the epoch (no flag; tests move it). */
  legacyTokenCleanerClock?: () => number;
}

export interface ControllerContext {
  client: ObjectClient & PathGetter;
  informers: InformerFactory;
  profile: PlatformProfile;
  settings: ControllerSettings;
  metrics?: ControllerManagerMetrics;
  /** This instance's identity (the leader election identity). */
  identity: string;
  log: LogFn;
}

/** A started controller: work begins with `run()` once the shared informers are synced. */
export interface Controller {
  run(): void;
  stop(): void;
}

export function queueMetrics(ctx: ControllerContext, name: string): QueueMetrics | undefined {
  return ctx.metrics?.queue(name);
}

/** Logs one attempted write: `controller action`. */
export function recordAction(ctx: ControllerContext, controller: string, verb: string, res: ResourceRef, namespace: string | undefined, name: string): void {
  ctx.log("info", "controller action", { controller, verb, resource: res.resource, namespace: namespace ?? "", name, identity: ctx.identity });
}

/** `<group>/<version>` of a resource the profile names. */
export function resourceOf(profile: PlatformProfile, group: Parameters<PlatformProfile["group"]>[0], version: string, resource: string): ResourceRef {
  return { group: profile.group(group), version, resource };
}
