/**
 * `store restore [flags]` builds a member's data directory from a snapshot file instead
 * (maintenance/restore.ts).
 *
 * The store node process: a member of the Raft group (RaftNode over the framed peer
 * stream on --listen-peer-urls) serving the etcd v3 client API on
 * --listen-client-urls and, while it leads, publishing every applied revision to
 * the Redis stream (--redis-url, --revision-stream).
 *
 * Logs are pino JSON lines on stdout; the line "store node ready" carries the
 * bound client URLs. SIGINT/SIGTERM stop it gracefully. A member removed from the
 * cluster stops its node once the retirement policy lets it, logs "this member was
 * removed from the cluster; exiting" and exits with status 0 (a restart would only
 * hear again that it was removed).
 */
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { parseFlags, usage } from "../../shared/cli/flags.ts";
import { gatesFromFlag } from "../../shared/featuregate/gates.ts";
import { createLogger } from "../../shared/observability/logger.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { restoreCommand } from "./maintenance/restore.ts";
import { MvccStore } from "./mvcc/index.ts";
import { StoreGrpcServer } from "./server/grpc-server.ts";
import { STORE_COMMAND_FLAGS, STORE_GATES } from "./server/command-flags.ts";
import { nodeConfig, type NodeConfig } from "./server/node-flags.ts";
import { openBackend } from "./server/open-backend.ts";
import { RevisionPublisher } from "./server/publisher.ts";
import { clientCredentials } from "./server/tls-credentials.ts";
import { redactRedisUrl, redisTls } from "../../shared/tls/redis-options.ts";

/**
 * The command line: `--help` prints every flag with its default and returns undefined;
 * an unknown flag, a bad value or an inconsistent combination (nodeConfig's completion and
 * validation, the profile) exits with status 2 and the flags.
 */
function parse(argv: readonly string[]): NodeConfig | undefined {
  try {
    const flags = parseFlags(argv, STORE_COMMAND_FLAGS);
    if (flags.help) {
      process.stdout.write(`Usage: store [flags]\n\nflags:\n${usage(STORE_COMMAND_FLAGS)}\n`);
      return undefined;
    }
    try {
      gatesFromFlag(STORE_GATES, (flags["feature-gates"] as string[] | undefined) ?? []);
    } catch (err) {
      throw new Error(`invalid argument for --feature-gates: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const config = nodeConfig(flags);
    getProfile(config.profile);
    return config;
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    process.stderr.write(`error: ${err.message}\n\nflags:\n${usage(STORE_COMMAND_FLAGS)}\n`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === "restore") process.exit(await restoreCommand(process.argv.slice(3)));
  const config = parse(process.argv.slice(2));
  if (config === undefined) return;
  const log = createLogger({ component: "store" }).child({ member: config.name });
  config.dataDir = resolve(config.dataDir);
  await mkdir(config.dataDir, { recursive: true });

  const mvcc = new MvccStore();
  const redis = config.redisUrl === undefined ? undefined : redisTls(config.redisUrl, config.tls.redis, (err) => log.warn({ err: err.message }, "Redis TLS files changed but cannot be used"));
  const clientTls = clientCredentials(config, log);
  const publisher =
    config.redisUrl === undefined
      ? undefined
      : new RevisionPublisher(mvcc, {
          url: config.redisUrl,
          tls: redis?.options.tls,
          stream: config.revisionStream,
          log: (level, msg, fields) => log[level](fields ?? {}, msg),
        });
  // The node drives the publisher: setLeader on leadership changes, notify on applies.
  publisher?.start();
  // The node may stop on its own (removed from the cluster) before the server runs: remember why.
  let removedEarly: string | undefined;
  let onRemoved = (reason: string): void => void (removedEarly = reason);
  const opened = await openBackend(config, log, { mvcc, publisher, onRemoved: (reason) => onRemoved(reason) });
  const { backend } = opened;
  const server = new StoreGrpcServer(backend, {
    maxRequestBytes: config.maxRequestBytes,
    quotaBackendBytes: config.quotaBackendBytes,
    corruptCheckTimeMs: config.corruptCheckTimeMs,
    name: config.name,
    clientUrls: config.advertiseClientUrls,
    peerUrls: config.initialCluster.find((m) => m.name === config.name)?.peerUrls ?? [],
    minLeaseTtl: Math.ceil((3 * config.electionTimeoutMs) / 2 / 1000),
    logger: log,
    forwardCredentials: clientTls.channel.credentials,
  });
  const bound: string[] = [];
  for (const url of config.listenClientUrls) {
    const secure = url.protocol === "https:";
    const port = await server.listen(`${url.hostname}:${url.port}`, secure ? clientTls.server.credentials : undefined);
    bound.push(`${secure ? "https" : "http"}://${url.hostname}:${port}`);
  }

  log.info(
    { clientUrls: bound, backend: opened.description, dataDir: config.dataDir, redis: config.redisUrl === undefined ? null : redactRedisUrl(config.redisUrl), stream: config.revisionStream, profile: config.profile },
    "store node ready",
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    await server.close();
    await opened.close();
    await publisher?.stop();
    clientTls.close();
    redis?.close();
    process.exit(0);
  };
  onRemoved = (reason) => {
    log.warn({ reason }, "this member was removed from the cluster; exiting");
    void stop("removed");
  };
  if (removedEarly !== undefined) onRemoved(removedEarly);
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err: unknown) => {
  process.stderr.write(`store: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
