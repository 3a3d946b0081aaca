/**
 * The controller manager's controllers and `runControllers`, the one way to start
 * them: in the controller-manager process (main.ts) or in process by the single-process
 * default (services/embedded/), always as an ordinary API client.
 *
 * `--controllers` works like the platform's: `*` turns on every controller that is on
 * by default, `name` turns one on, `-name` turns one off; names are the real ones
 * (`garbage-collector-controller`, `namespace-controller`) or their aliases
 * (`garbagecollector`, `namespace`). An unknown name is an error.
 */
import type { ObjectClient, PathGetter } from "../../shared/client/object-client.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import { GarbageCollector } from "./garbagecollector/collector.ts";
import { NamespaceController } from "./namespace/controller.ts";

export const KNOWN_CONTROLLERS = ["garbage-collector-controller", "namespace-controller"] as const;
export type ControllerName = (typeof KNOWN_CONTROLLERS)[number];

const ALIASES: Record<string, ControllerName> = {
  garbagecollector: "garbage-collector-controller",
  namespace: "namespace-controller",
};

export class ControllerSelectionError extends Error {}

function canonical(name: string): ControllerName {
  const n = ALIASES[name] ?? name;
  if (!(KNOWN_CONTROLLERS as readonly string[]).includes(n)) {
    throw new ControllerSelectionError(`"${name}" is not in the list of known controllers`);
  }
  return n as ControllerName;
}

/** The controllers a `--controllers` list turns on (default `*`). */
export function selectControllers(spec: readonly string[] = ["*"]): Set<ControllerName> {
  const on = new Set<ControllerName>();
  const off = new Set<ControllerName>();
  let star = false;
  for (const raw of spec) {
    const item = raw.trim();
    if (item === "*") star = true;
    else if (item.startsWith("-")) off.add(canonical(item.slice(1)));
    else if (item !== "") on.add(canonical(item));
  }
  const result = new Set<ControllerName>();
  for (const name of KNOWN_CONTROLLERS) if (!off.has(name) && (on.has(name) || star)) result.add(name);
  return result;
}

export interface RunControllersOptions {
  /** `--controllers` items (default `*`). */
  controllers?: readonly string[];
  /** The platform's namespace finalizer (the profile's `namespaceFinalizer`). */
  namespaceFinalizer: string;
  /** `--concurrent-gc-syncs` and `--concurrent-namespace-syncs` (defaults 20 and 10). */
  concurrentGcSyncs?: number;
  concurrentNamespaceSyncs?: number;
  log?: LogFn;
  /** Aborting stops whatever was started and makes a pending `runControllers` reject. */
  signal?: AbortSignal;
}

export interface RunningControllers {
  names: ControllerName[];
  garbageCollector?: GarbageCollector;
  namespaceController?: NamespaceController;
  stop(): void;
}

/** Starts the selected controllers; resolves once each has its first complete view of the cluster. */
export async function runControllers(client: ObjectClient & PathGetter, options: RunControllersOptions): Promise<RunningControllers> {
  const names = selectControllers(options.controllers);
  const running: RunningControllers = {
    names: [...names],
    stop() {
      running.garbageCollector?.stop();
      running.namespaceController?.stop();
    },
  };
  const signal = options.signal;
  const onAbort = () => running.stop();
  signal?.addEventListener("abort", onAbort);
  const checkAborted = () => {
    if (signal?.aborted) throw new Error("controllers stopped before they started");
  };
  try {
    checkAborted();
    // Each controller is recorded before its start, so an abort can stop a start that waits on the API.
    if (names.has("namespace-controller")) {
      running.namespaceController = new NamespaceController(client, { finalizer: options.namespaceFinalizer, workers: options.concurrentNamespaceSyncs, log: options.log });
      await running.namespaceController.start();
      checkAborted();
    }
    if (names.has("garbage-collector-controller")) {
      running.garbageCollector = new GarbageCollector(client, { workers: options.concurrentGcSyncs, log: options.log });
      await running.garbageCollector.start();
      checkAborted();
    }
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
