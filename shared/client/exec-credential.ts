/**
 * The client credential plugin (Part 2, "Client credential plugin (client side)"): a
 * user's `exec` section names a command that prints an `ExecCredential`.
 *
 * Contracts:
 * - Configuration: `command` and `apiVersion` (`client.authentication.<domain>/v1` or
 *   `/v1beta1`) are required; `interactiveMode` (`Never`, `IfAvailable`, `Always`) is
 *   required in v1 and defaults to `IfAvailable` in v1beta1. A command holding a path
 *   separator is relative to the configuration file's directory; a bare name is looked
 *   up on PATH.
 * - Input: the plugin runs with the process environment plus `env`, and the profile's
 *   `…_EXEC_INFO` variable holding an ExecCredential whose `spec.interactive` says
 *   whether standard input is handed over, and, with `provideClusterInfo`,
 *   `spec.cluster` (server, certificate-authority-data, config from the cluster's exec
 *   extension, tls-server-name, insecure-skip-tls-verify, proxy-url).
 *   `Always` without a terminal on standard input fails before running anything.
 * - Output: an ExecCredential of the same apiVersion with `status.token`, or both
 *   `status.clientCertificateData` and `status.clientKeyData`, and an optional
 *   RFC 3339 `status.expirationTimestamp`.
 * - Caching: one credential per provider (so per process) until it expires, or, without
 *   an expiry, until a 401 answers a request made with it. Concurrent callers share one
 *   run of the plugin.
 * - Failures (`ExecCredentialError`, one line): a missing command (with `installHint`),
 *   a run longer than the timeout (killed), a non-zero exit (with the plugin's stderr),
 *   output that is not an ExecCredential, a wrong apiVersion, no credential, half a
 *   key pair, or an already expired credential.
 */
import { spawn } from "node:child_process";
import { isAbsolute, resolve, sep } from "node:path";
import type { PlatformProfile } from "../platform/index.ts";
import type { ClientConfig, ExecConfig } from "./kubeconfig.ts";
import { CredentialError, type Credential, type CredentialProvider } from "./transport.ts";

export class ExecCredentialError extends CredentialError {
  override name = "ExecCredentialError";
}

export type InteractiveMode = "Never" | "IfAvailable" | "Always";
const MODES: readonly InteractiveMode[] = ["Never", "IfAvailable", "Always"];

export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
const STDERR_TAIL = 2000;

export interface ExecProviderOptions {
  /** Kill the plugin after this long (default 60 s). */
  timeoutMs?: number;
  /** Whether standard input is a terminal (default: `process.stdin.isTTY`). */
  stdinIsTerminal?: boolean;
  /** Base environment of the plugin (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

/** The cluster as the plugin may be told about it. */
export interface ExecClusterInfo {
  server: string;
  "tls-server-name"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "certificate-authority-data"?: string;
  "proxy-url"?: string;
  config?: unknown;
}

interface CachedCredential {
  credential: Credential;
  expiresAt?: number;
}

/** The validated interactive mode of an exec section (v1beta1 defaults to IfAvailable). */
export function interactiveModeOf(exec: ExecConfig, version: string): InteractiveMode {
  const mode = exec.interactiveMode;
  if (mode === undefined || mode === "") {
    if (version === "v1") throw new ExecCredentialError("exec plugin: interactiveMode must be specified to use exec authentication plugin");
    return "IfAvailable";
  }
  if (!(MODES as readonly string[]).includes(mode)) throw new ExecCredentialError(`exec plugin: invalid interactiveMode ${JSON.stringify(mode)}: must be one of ${MODES.join(", ")}`);
  return mode as InteractiveMode;
}

/** The command to spawn: relative to the configuration's directory when it names a path. */
export function resolveExecCommand(exec: ExecConfig): string {
  const c = exec.command;
  if (isAbsolute(c) || !(c.includes(sep) || c.includes("/"))) return c;
  return resolve(exec.base, c);
}

export class ExecCredentialProvider implements CredentialProvider {
  private readonly version: string;
  private readonly mode: InteractiveMode;
  private readonly command: string;
  private cached: CachedCredential | undefined;
  private running: Promise<CachedCredential> | undefined;

  constructor(
    private readonly profile: PlatformProfile,
    private readonly exec: ExecConfig,
    private readonly cluster: ExecClusterInfo,
    private readonly opts: ExecProviderOptions = {},
  ) {
    const group = profile.groups.clientAuthentication;
    const m = /^(.*)\/(v1|v1beta1)$/.exec(exec.apiVersion);
    if (!m || m[1] !== group) throw new ExecCredentialError(`exec plugin: invalid apiVersion ${JSON.stringify(exec.apiVersion)}: must be ${group}/v1 or ${group}/v1beta1`);
    this.version = m[2];
    this.mode = interactiveModeOf(exec, this.version);
    this.command = resolveExecCommand(exec);
  }

  /** How many times the plugin ran (for diagnostics and tests). */
  runs = 0;

  async credential(): Promise<Credential> {
    const now = (this.opts.now ?? Date.now)();
    if (this.cached && (this.cached.expiresAt === undefined || this.cached.expiresAt > now)) return this.cached.credential;
    this.running ??= this.run().finally(() => (this.running = undefined));
    this.cached = await this.running;
    return this.cached.credential;
  }

  unauthorized(used: Credential): void {
    if (this.cached && this.cached.credential === used) this.cached = undefined;
  }

  private interactive(): boolean {
    const terminal = this.opts.stdinIsTerminal ?? process.stdin.isTTY === true;
    if (this.mode === "Never") return false;
    if (this.mode === "IfAvailable") return terminal;
    if (!terminal) throw new ExecCredentialError("exec plugin cannot support interactive mode: standard input is not a terminal");
    return true;
  }

  private execInfo(interactive: boolean): string {
    const spec: Record<string, unknown> = { interactive };
    if (this.exec.provideClusterInfo) spec.cluster = this.cluster;
    return JSON.stringify({ kind: "ExecCredential", apiVersion: this.exec.apiVersion, spec });
  }

  private notFound(): ExecCredentialError {
    const hint = this.exec.installHint ? `: ${this.exec.installHint.trim().replace(/\s*\n\s*/g, " ")}` : "";
    return new ExecCredentialError(`exec: executable ${this.exec.command} not found${hint}`);
  }

  private run(): Promise<CachedCredential> {
    let interactive: boolean;
    try {
      interactive = this.interactive();
    } catch (err) {
      return Promise.reject(err);
    }
    this.runs++;
    const env: NodeJS.ProcessEnv = { ...(this.opts.env ?? process.env) };
    for (const v of this.exec.env) env[v.name] = v.value;
    env[this.profile.execInfoEnv] = this.execInfo(interactive);
    const timeoutMs = this.opts.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    return new Promise<CachedCredential>((done, fail) => {
      const child = spawn(this.command, this.exec.args, { env, stdio: [interactive ? "inherit" : "ignore", "pipe", interactive ? "inherit" : "pipe"] });
      let stdout = "";
      let stderr = "";
      let timedOut = false;
      child.stdout?.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
      child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString("utf8")).slice(-STDERR_TAIL)));
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, timeoutMs);
      child.once("error", (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (err.code === "ENOENT") fail(this.notFound());
        else if (err.code === "EACCES") fail(new ExecCredentialError(`exec: executable ${this.exec.command} cannot be run: permission denied`));
        else fail(new ExecCredentialError(`exec: ${err.message}`));
      });
      child.once("close", (code, signal) => {
        clearTimeout(timer);
        if (timedOut) return fail(new ExecCredentialError(`exec: executable ${this.exec.command} did not finish within ${timeoutMs / 1000}s and was killed`));
        const said = stderr.trim().replace(/\s*\n\s*/g, " | ");
        if (code !== 0) {
          const how = code === null ? `was killed by ${signal}` : `failed with exit code ${code}`;
          return fail(new ExecCredentialError(`exec: executable ${this.exec.command} ${how}${said ? `: ${said}` : ""}`));
        }
        try {
          done(this.decode(stdout));
        } catch (err) {
          fail(err);
        }
      });
    });
  }

  private decode(stdout: string): CachedCredential {
    let doc: unknown;
    try {
      doc = JSON.parse(stdout);
    } catch (err) {
      const snippet = stdout.trim().slice(0, 60).replace(/\s+/g, " ");
      throw new ExecCredentialError(`exec plugin: decoding stdout: not an ExecCredential (${(err as Error).message}; output began ${JSON.stringify(snippet)})`);
    }
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new ExecCredentialError("exec plugin: decoding stdout: expected an ExecCredential object");
    const d = doc as { apiVersion?: unknown; kind?: unknown; status?: unknown };
    if (d.kind !== "ExecCredential") throw new ExecCredentialError(`exec plugin: decoding stdout: kind ${JSON.stringify(d.kind ?? "")} is not ExecCredential`);
    if (d.apiVersion !== this.exec.apiVersion) {
      throw new ExecCredentialError(`exec plugin is configured to use API version ${this.exec.apiVersion}, plugin returned version ${String(d.apiVersion ?? "")}`);
    }
    if (!d.status || typeof d.status !== "object") throw new ExecCredentialError("exec plugin didn't return a status field");
    const s = d.status as Record<string, unknown>;
    const token = typeof s.token === "string" ? s.token : "";
    const cert = typeof s.clientCertificateData === "string" ? s.clientCertificateData : "";
    const key = typeof s.clientKeyData === "string" ? s.clientKeyData : "";
    if (!token && !cert && !key) throw new ExecCredentialError("exec plugin didn't return a token or cert/key pair");
    if (!cert !== !key) throw new ExecCredentialError("exec plugin returned only certificate or key, not both");
    let expiresAt: number | undefined;
    if (s.expirationTimestamp !== undefined && s.expirationTimestamp !== null) {
      expiresAt = typeof s.expirationTimestamp === "string" ? Date.parse(s.expirationTimestamp) : NaN;
      if (!Number.isFinite(expiresAt)) throw new ExecCredentialError(`exec plugin returned an invalid expirationTimestamp ${JSON.stringify(s.expirationTimestamp)}: must be RFC 3339`);
      if (expiresAt <= (this.opts.now ?? Date.now)()) throw new ExecCredentialError(`exec plugin returned an expired credential (expirationTimestamp ${String(s.expirationTimestamp)})`);
    }
    const credential: Credential = cert ? { cert, key } : { token };
    if (cert && token) credential.token = token;
    return { credential, expiresAt };
  }
}

/** What the plugin is told about the cluster (with `provideClusterInfo`). */
export function clusterInfoOf(config: ClientConfig, profile: PlatformProfile): ExecClusterInfo {
  const info: ExecClusterInfo = { server: config.server };
  if (config.tlsServerName) info["tls-server-name"] = config.tlsServerName;
  if (config.insecureSkipTlsVerify) info["insecure-skip-tls-verify"] = true;
  if (config.ca) info["certificate-authority-data"] = Buffer.from(config.ca).toString("base64");
  if (config.proxyUrl) info["proxy-url"] = config.proxyUrl;
  const ext = config.clusterExtensions?.[`${profile.groups.clientAuthentication}/exec`];
  if (ext !== undefined) info.config = ext;
  return info;
}

/** The provider for a resolved configuration's `exec` section, or undefined when it has none. */
export function execProviderFor(config: ClientConfig, profile: PlatformProfile, opts: ExecProviderOptions = {}): ExecCredentialProvider | undefined {
  if (!config.exec) return undefined;
  return new ExecCredentialProvider(profile, config.exec, clusterInfoOf(config, profile), opts);
}
