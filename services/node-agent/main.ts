/**
 * The node-agent process: registers its Node, keeps its Lease renewed and its status
 * posted, and serves the agent's HTTPS API (healthz, pods, checkpoint) for the node
 * named by `--hostname-override` (or the host name). It is an API client configured by
 * `--kubeconfig` (created by TLS bootstrap from `--bootstrap-kubeconfig` when missing).
 * Prints `node agent <name> listening on <url>` once serving; stops on SIGTERM/SIGINT.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { FlagError, parseFlags, usage } from "../../shared/cli/flags.ts";
import { KubeconfigError } from "../../shared/client/kubeconfig.ts";
import { createLogger, logTo } from "../../shared/observability/logger.ts";
import { runNodeAgent } from "./agent.ts";
import { NODE_AGENT_FLAGS, nodeAgentOptions, type NodeAgentOptions } from "./flags.ts";

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  let options: NodeAgentOptions;
  try {
    const values = parseFlags(argv, NODE_AGENT_FLAGS);
    if (values.help) {
      process.stdout.write(`Usage: node-agent --kubeconfig FILE [flags]\n\nflags:\n${usage(NODE_AGENT_FLAGS)}\n`);
      return;
    }
    options = nodeAgentOptions(values);
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`error: ${err.message}\n\nflags:\n${usage(NODE_AGENT_FLAGS)}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = logTo(createLogger({ component: "node-agent" }));
  const agent = await runNodeAgent(options, log);
  process.stdout.write(`node agent ${agent.nodeName} listening on ${agent.server.url}\n`);
  const shutdown = () => {
    void agent.stop().finally(() => process.exit(0));
  };
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
}

const isEntry = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (isEntry) {
  main().catch((err: unknown) => {
    const msg = err instanceof KubeconfigError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`node-agent: ${msg}\n`);
    process.exit(1);
  });
}
