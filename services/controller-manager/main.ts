/**
 * The controller-manager process: an ordinary API client configured by `--kubeconfig`
 * (client certificate or bearer token, the server's CA), running the controllers
 * chosen by `--controllers` until SIGTERM/SIGINT. Imports no apiserver or store code.
 * Leader election comes with a later change: run one instance per cluster for now.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { FlagError, parseFlags, usage, type FlagSpec } from "../../shared/cli/flags.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { KubeconfigError } from "../../shared/client/kubeconfig.ts";
import { createLogger, logTo } from "../../shared/observability/logger.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ControllerSelectionError, KNOWN_CONTROLLERS, runControllers, selectControllers } from "./controllers.ts";

export const CONTROLLER_MANAGER_FLAGS: Record<string, FlagSpec> = {
  kubeconfig: { kind: "string", help: "Path to a client configuration file (server, CA, client certificate or token) used to reach the API server" },
  controllers: {
    kind: "list",
    default: ["*"],
    help: `A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. All controllers: ${KNOWN_CONTROLLERS.join(", ")} (aliases garbagecollector, namespace)`,
  },
  "concurrent-gc-syncs": { kind: "number", default: 20, help: "The number of garbage collector workers that are allowed to sync concurrently." },
  "concurrent-namespace-syncs": { kind: "number", default: 10, help: "The number of namespace objects that are allowed to sync concurrently. Larger number = more responsive namespace termination, but more CPU (and network) load" },
  profile: { kind: "string", default: "plat", help: "Naming profile of the platform: plat or kubernetes" },
  help: { kind: "boolean", help: "Print the flags and exit" },
};

/** Waits until the API server answers /readyz with 200 (it may start after this process). */
async function waitForServer(client: HttpsObjectClient, warn: (msg: string, fields: Record<string, unknown>) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const answer = await client.transport.send("GET", "/readyz").then(
      (r) => `HTTP ${r.status}`,
      (err: unknown) => String(err instanceof Error ? err.message : err),
    );
    if (answer === "HTTP 200") return;
    if (attempt === 1 || attempt % 30 === 0) warn("waiting for the API server", { server: client.config.server, answer });
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  let flags;
  try {
    flags = parseFlags(argv, CONTROLLER_MANAGER_FLAGS);
    if (!flags.help) {
      if (!flags.kubeconfig) throw new FlagError("--kubeconfig is required");
      selectControllers(flags.controllers as string[]);
      for (const f of ["concurrent-gc-syncs", "concurrent-namespace-syncs"]) {
        if (!Number.isInteger(flags[f]) || (flags[f] as number) < 1) throw new FlagError(`--${f} must be a positive integer`);
      }
    }
  } catch (err) {
    if (err instanceof FlagError || err instanceof ControllerSelectionError) {
      process.stderr.write(`error: ${err.message}\n\nflags:\n${usage(CONTROLLER_MANAGER_FLAGS)}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (flags.help) {
    process.stdout.write(`Usage: controller-manager --kubeconfig FILE [flags]\n\nflags:\n${usage(CONTROLLER_MANAGER_FLAGS)}\n`);
    return;
  }
  const profile = getProfile(String(flags.profile));
  const log = createLogger({ component: "controller-manager" });
  const client = HttpsObjectClient.fromKubeconfig(String(flags.kubeconfig));
  await waitForServer(client, (msg, fields) => log.warn(fields, msg));
  const running = await runControllers(client, {
    controllers: flags.controllers as string[],
    namespaceFinalizer: profile.namespaceFinalizer,
    concurrentGcSyncs: flags["concurrent-gc-syncs"] as number,
    concurrentNamespaceSyncs: flags["concurrent-namespace-syncs"] as number,
    log: logTo(log),
  });
  log.info({ controllers: running.names, server: client.config.server }, "controllers started");
  process.stdout.write(`controller manager running ${running.names.join(", ") || "no controllers"} against ${client.config.server}\n`);
  const shutdown = () => {
    running.stop();
    client.close();
    process.exit(0);
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}

const isEntry = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isEntry) {
  main().catch((err: unknown) => {
    const msg = err instanceof KubeconfigError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`controller-manager: ${msg}\n`);
    process.exit(1);
  });
}
