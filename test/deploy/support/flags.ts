/**
 * Command lines of the services, parsed the way their main.ts parses them, so that a
 * flag written in a Dockerfile, the compose file or the chart that the service would
 * refuse (unknown flag, bad value, inconsistent members) fails a test instead of a pod.
 */
import { parseFlags } from "../../../shared/cli/flags.ts";
import { validateAuthenticationOptions } from "../../../services/apiserver/authn/options.ts";
import { validateAuthorizationFlags } from "../../../services/apiserver/authz/options.ts";
import { parseApiserverCommandLine, type ApiserverCommandLine } from "../../../services/apiserver/server/options.ts";
import { nodeConfig, STORE_FLAGS, type NodeConfig } from "../../../services/store/server/node-flags.ts";
import { getProfile } from "../../../shared/platform/index.ts";
import { CONTROLLER_MANAGER_FLAGS } from "../../../services/controller-manager/main.ts";
import { selectControllers } from "../../../services/controller-manager/controllers.ts";

export type { ApiserverCommandLine as ApiserverCommand } from "../../../services/apiserver/server/options.ts";

/** Throws as the apiserver would refuse to start on these arguments (before reading files). */
export function parseApiserverArgs(argv: readonly string[]): ApiserverCommandLine {
  const command = parseApiserverCommandLine(argv);
  const errors = validateAuthenticationOptions(command.authentication);
  if (errors.length > 0) throw new Error(errors.join("; "));
  validateAuthorizationFlags(command.authorization);
  return command;
}

/** Throws as a store node would refuse to start on these arguments. */
export function parseStoreArgs(argv: readonly string[]): NodeConfig {
  const config = nodeConfig(parseFlags(argv, STORE_FLAGS));
  getProfile(config.profile);
  return config;
}

/** Throws as the controller manager would refuse to start on these arguments (before reading files). */
export function parseControllerManagerArgs(argv: readonly string[]): Record<string, unknown> {
  const flags = parseFlags(argv, CONTROLLER_MANAGER_FLAGS);
  if (!flags.kubeconfig) throw new Error("--kubeconfig is required");
  selectControllers(flags.controllers as string[]);
  for (const f of ["concurrent-gc-syncs", "concurrent-namespace-syncs"]) {
    if (!Number.isInteger(flags[f]) || (flags[f] as number) < 1) throw new Error(`--${f} must be a positive integer`);
  }
  getProfile(String(flags.profile));
  return flags;
}

/** Kubernetes-style `$(VAR)` expansion of container arguments. */
export function expandEnv(args: readonly string[], env: Record<string, string>): string[] {
  return args.map((a) => a.replace(/\$\(([A-Z_][A-Z0-9_]*)\)/g, (m, name: string) => env[name] ?? m));
}
