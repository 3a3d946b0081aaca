/**
 * The controller manager's controllers and `runControllers`, the one way to start
 * them: in the controller-manager process (main.ts) or in process by the single-process
 * default (services/embedded/), always as an ordinary API client.
 *
 * `--controllers` works like the platform's: `*` turns on every controller that is on
 * by default, `name` turns one on, `-name` turns one off; names are the real ones
 * (`garbage-collector-controller`, …) or their aliases (`garbagecollector`, …). An
 * unknown name is an error. As in the platform, the bootstrap signer and the token
 * cleaner are off by default.
 *
 * Start order: every selected controller registers its informers and handlers, the
 * shared informers list once, then each controller's workers run.
 */
import { InformerFactory } from "../../shared/client/informer.ts";
import type { ObjectClient, PathGetter } from "../../shared/client/object-client.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import { getProfile, type PlatformProfile } from "../../shared/platform/index.ts";
import type { Controller, ControllerContext, ControllerSettings } from "./context.ts";
import type { ClientFor } from "./credentials.ts";
import { GarbageCollector } from "./garbagecollector/collector.ts";
import type { ControllerManagerMetrics } from "./metrics.ts";
import { NamespaceController } from "./namespace/controller.ts";
import { CONTROLLER_TABLE, type InformerControllerName } from "./registry.ts";

interface Descriptor {
  name: string;
  alias: string;
  enabledByDefault: boolean;
}

const OWN_REFLECTORS: Descriptor[] = [
  { name: "garbage-collector-controller", alias: "garbagecollector", enabledByDefault: true },
  { name: "namespace-controller", alias: "namespace", enabledByDefault: true },
];

const DESCRIPTORS: Descriptor[] = [...OWN_REFLECTORS, ...CONTROLLER_TABLE.map(({ name, alias, enabledByDefault }) => ({ name, alias, enabledByDefault }))];

export const KNOWN_CONTROLLERS: readonly string[] = DESCRIPTORS.map((d) => d.name);
export type ControllerName = "garbage-collector-controller" | "namespace-controller" | InformerControllerName;

export class ControllerSelectionError extends Error {}

function canonical(name: string): string {
  const d = DESCRIPTORS.find((x) => x.name === name || x.alias === name);
  if (!d) throw new ControllerSelectionError(`"${name}" is not in the list of known controllers`);
  return d.name;
}

/** The controllers a `--controllers` list turns on (default `*`). */
export function selectControllers(spec: readonly string[] = ["*"]): Set<ControllerName> {
  const on = new Set<string>();
  const off = new Set<string>();
  let star = false;
  for (const raw of spec) {
    const item = raw.trim();
    if (item === "*") star = true;
    else if (item.startsWith("-")) off.add(canonical(item.slice(1)));
    else if (item !== "") on.add(canonical(item));
  }
  const result = new Set<ControllerName>();
  for (const d of DESCRIPTORS) if (!off.has(d.name) && (on.has(d.name) || (star && d.enabledByDefault))) result.add(d.name as ControllerName);
  return result;
}

export interface RunControllersOptions {
  /** `--controllers` items (default `*`). */
  controllers?: readonly string[];
  /** The platform's namespace finalizer (the profile's `namespaceFinalizer`). */
  namespaceFinalizer: string;
  /** The naming profile; by default the one whose namespace finalizer is given. */
  profile?: PlatformProfile;
  settings?: ControllerSettings;
  metrics?: ControllerManagerMetrics;
  /** This instance's identity, written into action records (default the host's pid). */
  identity?: string;
  /** `--concurrent-gc-syncs` and `--concurrent-namespace-syncs` (defaults 20 and 10). */
  concurrentGcSyncs?: number;
  concurrentNamespaceSyncs?: number;
  log?: LogFn;
  /** Aborting stops whatever was started and makes a pending `runControllers` reject. */
  signal?: AbortSignal;
  /** `--use-service-account-credentials`: the client each controller writes with (default `client`). */
  clientFor?: ClientFor;
}

export interface RunningControllers {
  names: ControllerName[];
  garbageCollector?: GarbageCollector;
  namespaceController?: NamespaceController;
  stop(): void;
}

function profileFor(options: RunControllersOptions): PlatformProfile {
  if (options.profile) return options.profile;
  const k8s = getProfile("kubernetes");
  return options.namespaceFinalizer === k8s.namespaceFinalizer ? k8s : getProfile("plat");
}

/** Starts the selected controllers; resolves once each has its first complete view of the cluster. */
export async function runControllers(client: ObjectClient & PathGetter, options: RunControllersOptions): Promise<RunningControllers> {
  const names = selectControllers(options.controllers);
  const log: LogFn = options.log ?? (() => {});
  const informers = new InformerFactory(client, (msg, f) => log("warn", msg, f));
  const started: Controller[] = [];
  const running: RunningControllers = {
    names: [...names],
    stop() {
      running.garbageCollector?.stop();
      running.namespaceController?.stop();
      for (const c of started) c.stop();
      informers.stop();
    },
  };
  const signal = options.signal;
  const onAbort = () => running.stop();
  signal?.addEventListener("abort", onAbort);
  const checkAborted = () => {
    if (signal?.aborted) throw new Error("controllers stopped before they started");
  };
  const ctx: ControllerContext = {
    client,
    informers,
    profile: profileFor(options),
    settings: options.settings ?? {},
    metrics: options.metrics,
    identity: options.identity ?? `pid-${process.pid}`,
    log,
  };
  const clientFor: ClientFor = options.clientFor ?? (() => Promise.resolve(client));
  try {
    checkAborted();
    // Each controller is recorded before its start, so an abort can stop a start that waits on the API.
    if (names.has("namespace-controller")) {
      const namespaces = informers.informer({ group: "", version: "v1", resource: "namespaces" });
      running.namespaceController = new NamespaceController(await clientFor("namespace-controller"), namespaces, { finalizer: options.namespaceFinalizer, workers: options.concurrentNamespaceSyncs, log: options.log, metrics: options.metrics?.queue("namespace") });
    }
    if (names.has("garbage-collector-controller")) {
      running.garbageCollector = new GarbageCollector(await clientFor("generic-garbage-collector"), { workers: options.concurrentGcSyncs, log: options.log, metrics: options.metrics?.queue("garbage_collector_attempt_to_delete") });
      await running.garbageCollector.start();
      checkAborted();
    }
    for (const entry of CONTROLLER_TABLE) if (names.has(entry.name)) started.push(entry.start({ ...ctx, client: await clientFor(entry.clientName) }));
    await informers.start();
    checkAborted();
    running.namespaceController?.start();
    for (const c of started) c.run();
  } catch (err) {
    running.stop();
    throw err;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return running;
}

/**
 * `runControllers` for a host process that must not fail when the API refuses the
 * controllers (an authorization mode that denies them, a server not ready yet): starts
 * in the background; a failed discovery is retried with backoff (1 s doubling to 30 s),
 * a refused first list is retried by its reflector; failures are logged. `stop()` ends
 * the attempts (then `started` resolves undefined) or stops the running controllers.
 */
export function runControllersInBackground(client: ObjectClient & PathGetter, options: RunControllersOptions): { started: Promise<RunningControllers | undefined>; stop(): void } {
  const abort = new AbortController();
  let running: RunningControllers | undefined;
  let wake: () => void = () => {};
  const started = (async () => {
    for (let delay = 1000; !abort.signal.aborted; delay = Math.min(delay * 2, 30_000)) {
      try {
        running = await runControllers(client, { ...options, signal: abort.signal });
        return running;
      } catch (err) {
        if (abort.signal.aborted) break;
        options.log?.("warn", "controllers failed to start, retrying", { error: String(err), retryInMs: delay });
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delay);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
    return undefined;
  })();
  return {
    started,
    stop() {
      abort.abort();
      running?.stop();
      wake();
    },
  };
}
