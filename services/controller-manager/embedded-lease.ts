/**
 * Controllers under the controller manager's leader lease for a process whose main job
 * is something else (the embedded default's API server): replicas of it sharing one
 * store run the controllers once. `start` runs when this process acquires the lease and
 * returns the controllers' stop function; a lost lease stops them and the process
 * campaigns again after `recampaignDelayMs`: a lost lease never ends the host process.
 * `close()` stops the controllers and releases the lease (empty holder), so another
 * replica takes over at its next retry instead of after the lease duration.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { LeaderElector } from "../../shared/client/leader-election.ts";
import type { ObjectClient } from "../../shared/client/object-client.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import { defaultLeaseName } from "./options.ts";

type Log = (level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;

export interface LeasedControllersOptions {
  client: ObjectClient;
  profile: PlatformProfile;
  /** Starts the controllers with this holder identity; returns their stop function. */
  start: (identity: string) => () => void;
  log?: Log;
  recampaignDelayMs?: number;
}

export function runControllersUnderLease(opts: LeasedControllersOptions): { identity: string; close(): Promise<void> } {
  const identity = `${hostname()}_${randomUUID()}`;
  let stopControllers: (() => void) | undefined;
  let elector: LeaderElector | undefined;
  let closed = false;
  const campaign = () => {
    if (closed) return;
    elector = new LeaderElector({
      client: opts.client,
      coordinationGroup: opts.profile.group("coordination"),
      namespace: opts.profile.systemNamespace,
      name: defaultLeaseName(opts.profile),
      identity,
      log: opts.log,
      onStartedLeading: () => {
        if (!closed) stopControllers = opts.start(identity);
      },
      onStoppedLeading: () => {
        stopControllers?.();
        stopControllers = undefined;
        opts.log?.("error", "leaderelection lost; campaigning again", { identity });
        setTimeout(campaign, opts.recampaignDelayMs ?? 1000).unref();
      },
    });
    void elector.run();
  };
  campaign();
  return {
    identity,
    async close() {
      closed = true;
      stopControllers?.();
      stopControllers = undefined;
      await elector?.release();
    },
  };
}
