/**
 * Command lines of the services, parsed the way their main.ts parses them, so that a
 * flag written in a Dockerfile, the compose file or the chart that the service would
 * refuse (unknown flag, bad value, inconsistent members) fails a test instead of a pod.
 */
import { parseFlags, withoutFlags, type FlagValues } from "../../../shared/cli/flags.ts";
import { AUTHENTICATION_FLAGS, parseAuthenticationOptions, validateAuthenticationOptions, type AuthenticationOptions } from "../../../services/apiserver/authn/options.ts";
import { parseAuthorizationFlags, validateAuthorizationFlags, type AuthorizationFlags } from "../../../services/apiserver/authz/options.ts";
import { APISERVER_FLAGS } from "../../../services/apiserver/server/options.ts";
import { nodeConfig, STORE_FLAGS, type NodeConfig } from "../../../services/store/server/node-flags.ts";
import { getProfile } from "../../../shared/platform/index.ts";

/** Boolean flags of the security parsers (main.ts skips them without a value). */
const BOOLEAN_SECURITY_FLAGS = new Set(["enable-bootstrap-token-auth", "service-account-lookup", "anonymous-auth"]);

export interface ApiserverCommand {
  flags: FlagValues;
  authentication: AuthenticationOptions;
  authorization: AuthorizationFlags;
}

/** Throws as the apiserver would refuse to start on these arguments (before reading files). */
export function parseApiserverArgs(argv: readonly string[]): ApiserverCommand {
  const authentication = parseAuthenticationOptions(argv);
  const authorization = parseAuthorizationFlags(argv);
  const own = withoutFlags(
    argv,
    (name) => (AUTHENTICATION_FLAGS.includes(name) || name.startsWith("authorization-") || name === "enable-admission-plugins") && !(name in APISERVER_FLAGS),
    (name) => BOOLEAN_SECURITY_FLAGS.has(name),
  );
  const flags = parseFlags(own, APISERVER_FLAGS);
  getProfile(String(flags.profile));
  const errors = validateAuthenticationOptions(authentication);
  if (errors.length > 0) throw new Error(errors.join("; "));
  validateAuthorizationFlags(authorization);
  return { flags, authentication, authorization };
}

/** Throws as a store node would refuse to start on these arguments. */
export function parseStoreArgs(argv: readonly string[]): NodeConfig {
  const config = nodeConfig(parseFlags(argv, STORE_FLAGS));
  getProfile(config.profile);
  return config;
}

/** Kubernetes-style `$(VAR)` expansion of container arguments. */
export function expandEnv(args: readonly string[], env: Record<string, string>): string[] {
  return args.map((a) => a.replace(/\$\(([A-Z_][A-Z0-9_]*)\)/g, (m, name: string) => env[name] ?? m));
}
