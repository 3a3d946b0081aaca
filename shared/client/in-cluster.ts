/**
 * In-cluster client configuration: a process running in a pod reaches the API through
 * the API service's host and port variables (profile names, e.g. `<SERVICE>_SERVICE_HOST`)
 * and authenticates with the service account token mounted at the profile's token mount
 * path (`token`, `ca.crt`, `namespace`). The token is handed to the transport as a token
 * file, so a rotated token is picked up on the next request after the file changes.
 * Missing variables or files are one clear `KubeconfigError` line.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PlatformProfile } from "../platform/index.ts";
import { KubeconfigError, type ClientConfig } from "./kubeconfig.ts";

export interface InClusterOptions {
  /** Directory of the mounted token, CA and namespace files; default: the profile's mount path. */
  mountPath?: string;
  env?: NodeJS.ProcessEnv;
}

/** True when the service variables are set (the process seems to run in a pod). */
export function inClusterAvailable(profile: PlatformProfile, env: NodeJS.ProcessEnv = process.env): boolean {
  return !!env[profile.serviceHostEnv] && !!env[profile.servicePortEnv];
}

export function inClusterConfig(profile: PlatformProfile, opts: InClusterOptions = {}): ClientConfig {
  const env = opts.env ?? process.env;
  const host = env[profile.serviceHostEnv];
  const port = env[profile.servicePortEnv];
  if (!host || !port) {
    throw new KubeconfigError(`unable to load in-cluster configuration, ${profile.serviceHostEnv} and ${profile.servicePortEnv} must be defined`);
  }
  if (!/^\d{1,5}$/.test(port)) throw new KubeconfigError(`unable to load in-cluster configuration: ${profile.servicePortEnv} "${port}" is not a port number`);
  const dir = opts.mountPath ?? profile.admission.tokenMountPath;
  const tokenFile = join(dir, "token");
  if (!existsSync(tokenFile)) throw new KubeconfigError(`unable to load in-cluster configuration: no service account token at ${tokenFile}`);
  let ca: string;
  try {
    ca = readFileSync(join(dir, "ca.crt"), "utf8");
  } catch (err) {
    throw new KubeconfigError(`unable to load in-cluster configuration: cannot read ${join(dir, "ca.crt")}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let namespace: string | undefined;
  try {
    namespace = readFileSync(join(dir, "namespace"), "utf8").trim() || undefined;
  } catch {
    namespace = undefined;
  }
  const hostPart = host.includes(":") ? `[${host}]` : host;
  return { server: `https://${hostPart}:${port}`, ca, tokenFile, insecureSkipTlsVerify: false, namespace };
}
