/**
 * The controller-manager process: an ordinary API client configured by `--kubeconfig`
 * (client certificate or bearer token, the server's CA), serving `/healthz`, `/livez`,
 * `/readyz` and `/metrics` on its own HTTPS port (`--secure-port`, default 10257), and
 * running the controllers chosen by `--controllers` while it holds the leader lease
 * (`--leader-elect`, default on). A lost lease ends the process with exit code 1, as
 * the platform's does; SIGTERM/SIGINT stop the controllers, release the lease and exit 0.
 * Imports no apiserver or store code.
 */
import { realpathSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { fileURLToPath } from "node:url";
import { FlagError, parseFlags, usage, type FlagValues } from "../../shared/cli/flags.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { KubeconfigError } from "../../shared/client/kubeconfig.ts";
import { LeaderElector } from "../../shared/client/leader-election.ts";
import { createLogger, logTo } from "../../shared/observability/logger.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ControllerSelectionError, runControllersInBackground, selectControllers } from "./controllers.ts";
import { ServiceAccountCredentials } from "./credentials.ts";
import { ControllerManagerMetrics } from "./metrics.ts";
import { CONTROLLER_MANAGER_FLAGS, controllerSettings, defaultLeaseName, leaderElectionSettings, servingSettings, validateFlags } from "./options.ts";
import { delegatedAccess } from "./server/delegated-access.ts";
import { startHealthServer, type HealthServer } from "./server/health-server.ts";
import { servingPair } from "./server/serving-cert.ts";

export { CONTROLLER_MANAGER_FLAGS };

/** How long past the lease duration a leader may go unrenewed before `leaderElection` fails (the platform's 20 s). */
const LEADER_HEALTH_TOLERANCE_MS = 20_000;
/** How long a SIGTERM/SIGINT shutdown may take (lease release, closing connections) before the process exits anyway. */
const SHUTDOWN_LIMIT_MS = 5_000;

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

function parse(argv: string[]): FlagValues {
  try {
    const flags = parseFlags(argv, CONTROLLER_MANAGER_FLAGS);
    if (!flags.help) {
      validateFlags(flags);
      selectControllers(flags.controllers as string[]);
      controllerSettings(flags);
    }
    return flags;
  } catch (err) {
    if (err instanceof FlagError || err instanceof ControllerSelectionError) {
      process.stderr.write(`error: ${err.message}\n\nflags:\n${usage(CONTROLLER_MANAGER_FLAGS)}\n`);
      process.exit(2);
    }
    throw err;
  }
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const flags = parse(argv);
  if (flags.help) {
    process.stdout.write(`Usage: controller-manager --kubeconfig FILE [flags]\n\nflags:\n${usage(CONTROLLER_MANAGER_FLAGS)}\n`);
    return;
  }
  const profile = getProfile(String(flags.profile));
  const log = createLogger({ component: "controller-manager" });
  const logFn = logTo(log);
  const identity = `${hostname()}_${randomUUID()}`;
  const election = leaderElectionSettings(flags, profile);
  const serving = servingSettings(flags);
  const settings = controllerSettings(flags);
  const metrics = new ControllerManagerMetrics();
  const client = HttpsObjectClient.fromKubeconfig(String(flags.kubeconfig));
  // Without --root-ca-file the root CA is the one this process trusts for the API server.
  settings.rootCaPem ??= client.config.ca;
  let running: { stop(): void } | undefined;

  const leaseName = election.name;
  const elector = !election.enabled
    ? undefined
    : new LeaderElector({
        client,
        coordinationGroup: profile.group("coordination"),
        namespace: election.namespace,
        name: leaseName,
        identity,
        leaseDurationMs: election.leaseDurationMs,
        renewDeadlineMs: election.renewDeadlineMs,
        retryPeriodMs: election.retryPeriodMs,
        log: logFn,
        onStartedLeading: async () => {
          metrics.leaderStatus.set({ name: leaseName }, 1);
          process.stdout.write(`controller manager ${identity} is the leader of ${election.namespace}/${leaseName}\n`);
          startControllers();
        },
        onStoppedLeading: () => {
          metrics.leaderStatus.set({ name: leaseName }, 0);
          running?.stop();
          log.error({ lease: `${election.namespace}/${leaseName}`, identity }, "leaderelection lost");
          process.stderr.write("controller-manager: leaderelection lost\n");
          process.exit(1);
        },
      });

  let health: HealthServer | undefined;
  const access = serving.port !== 0 ? delegatedAccess(flags, profile) : undefined;
  if (serving.port !== 0) {
    const pair = await servingPair({ ...serving, name: defaultLeaseName(profile) });
    health = await startHealthServer({
      host: serving.bindAddress,
      port: serving.port,
      certPem: pair.certPem,
      keyPem: pair.keyPem,
      tls: serving.tls,
      metrics: metrics.registry,
      access,
      checks: [
        { name: "ping", check: () => undefined },
        { name: "leaderElection", check: () => elector?.check(LEADER_HEALTH_TOLERANCE_MS) },
      ],
      onFailure: (endpoint, check, reason) => log.warn({ endpoint, check, reason }, "health check failed"),
    });
    log.info({ url: health.url }, "serving securely");
    process.stdout.write(`controller manager serving health and metrics on ${health.url}\n`);
  }

  const credentials = flags["use-service-account-credentials"] ? new ServiceAccountCredentials(client, profile, logFn) : undefined;
  // In the background, as the platform's OnStartedLeading runs beside the renewals: a start that waits on
  // the API (the first lists of a large cluster, a failed discovery retried with backoff) neither holds up
  // the lease renewals nor, failing, ends the process.
  const startControllers = () => {
    const background = runControllersInBackground(client, {
      clientFor: credentials?.clientFor,
      controllers: flags.controllers as string[],
      namespaceFinalizer: profile.namespaceFinalizer,
      profile,
      settings,
      metrics,
      identity,
      concurrentGcSyncs: flags["concurrent-gc-syncs"] as number,
      concurrentNamespaceSyncs: flags["concurrent-namespace-syncs"] as number,
      log: logFn,
    });
    running = background;
    void background.started.then((started) => {
      if (!started) return;
      log.info({ controllers: started.names, server: client.config.server, identity }, "controllers started");
      process.stdout.write(`controller manager running ${started.names.join(", ") || "no controllers"} against ${client.config.server}\n`);
    });
  };

  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    running?.stop();
    // The lease release and the closes talk to the API: an API that is gone or hangs must not keep
    // the process alive, so the shutdown ends within SHUTDOWN_LIMIT_MS whatever they do.
    setTimeout(() => process.exit(0), SHUTDOWN_LIMIT_MS);
    void (async () => {
      await elector?.release();
      await health?.close();
      access?.close();
      credentials?.close();
      client.close();
      process.exit(0);
    })();
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);

  await waitForServer(client, (msg, fields) => log.warn(fields, msg));
  if (!elector) {
    startControllers();
    return;
  }
  metrics.leaderStatus.set({ name: election.name }, 0);
  void elector.run();
}

const isEntry = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isEntry) {
  main().catch((err: unknown) => {
    const msg = err instanceof KubeconfigError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`controller-manager: ${msg}\n`);
    process.exit(1);
  });
}
