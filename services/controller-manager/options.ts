/**
 * The controller manager's flags (names, kinds and defaults of the platform's) and
 * their validation into `ControllerManagerOptions`. Defaults that depend on the naming
 * profile (the lease's name and namespace) are resolved here: the lease is named like
 * the platform's (`kube-controller-manager` in the `kubernetes` profile; the system
 * namespace's prefix + `-controller-manager` in general) in the system namespace.
 */
import { readFileSync } from "node:fs";
import { FlagError, formatDuration, type FlagSpec, type FlagValues } from "../../shared/cli/flags.ts";
import { ALL_ALPHA_BETA, beta, featureGatesFlag, gaLocked, gatesFromFlag, type FeatureGates, type VersionedGateSpec } from "../../shared/featuregate/gates.ts";
import { LeaderElectionConfigError, validateLeaderElectionTimes } from "../../shared/client/leader-election.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import { TLS_FLAG_SPECS, tlsFlagsFrom, tlsServerOptions, type TlsFlags } from "../../shared/tls/options.ts";
import type { ControllerSettings } from "./context.ts";
import { KNOWN_CONTROLLERS } from "./controllers.ts";
import { DELEGATED_ACCESS_FLAGS } from "./server/delegated-access.ts";

/** The controller manager's gates of release 1.35, with their history. */
export const CONTROLLER_MANAGER_GATES: Readonly<Record<string, readonly VersionedGateSpec[]>> = {
  ...ALL_ALPHA_BETA,
  OrderedNamespaceDeletion: [beta("1.30", false), beta("1.33"), gaLocked("1.34")],
};

export const CONTROLLER_MANAGER_FLAGS: Record<string, FlagSpec> = {
  "feature-gates": featureGatesFlag(CONTROLLER_MANAGER_GATES),
  kubeconfig: { kind: "string", help: "Path to a client configuration file (server, CA, client certificate or token) used to reach the API server" },
  controllers: {
    kind: "list",
    default: ["*"],
    help: `A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. All controllers: ${KNOWN_CONTROLLERS.join(", ")}. Disabled-by-default controllers: bootstrap-signer-controller, token-cleaner-controller`,
  },
  "concurrent-gc-syncs": { kind: "number", default: 20, help: "The number of garbage collector workers that are allowed to sync concurrently." },
  "concurrent-namespace-syncs": { kind: "number", default: 10, help: "The number of namespace objects that are allowed to sync concurrently. Larger number = more responsive namespace termination, but more CPU (and network) load" },
  "leader-elect": { kind: "boolean", default: true, help: "Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability." },
  "leader-elect-lease-duration": { kind: "duration", default: 15_000, help: "The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate. This is only applicable if leader election is enabled." },
  "leader-elect-renew-deadline": { kind: "duration", default: 10_000, help: "The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration. This is only applicable if leader election is enabled." },
  "leader-elect-retry-period": { kind: "duration", default: 2_000, help: "The duration the clients should wait between attempting acquisition and renewal of a leadership. This is only applicable if leader election is enabled." },
  "leader-elect-resource-lock": { kind: "string", default: "leases", help: "The type of resource object that is used for locking during leader election. Supported options are 'leases'." },
  "leader-elect-resource-name": { kind: "string", help: "The name of resource object that is used for locking during leader election. When empty: the controller manager's lease name under the naming profile." },
  "leader-elect-resource-namespace": { kind: "string", help: "The namespace of resource object that is used for locking during leader election. When empty: the system namespace of the naming profile." },
  "secure-port": { kind: "number", default: 10257, help: "The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS at all." },
  "bind-address": { kind: "string", default: "0.0.0.0", help: "The IP address on which to listen for the --secure-port port." },
  "cert-dir": { kind: "string", help: "The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored." },
  "tls-cert-file": { kind: "string", help: "File containing the default x509 Certificate for HTTPS. If HTTPS serving is enabled, and --tls-cert-file and --tls-private-key-file are not provided, a self-signed certificate and key are generated for the public address and saved to the directory specified by --cert-dir." },
  ...TLS_FLAG_SPECS,
  ...DELEGATED_ACCESS_FLAGS,
  "tls-private-key-file": { kind: "string", help: "File containing the default x509 private key matching --tls-cert-file." },
  "root-ca-file": { kind: "string", help: "If set, this root certificate authority will be included in service account's token secret. This must be a valid PEM-encoded CA bundle." },
  "cluster-signing-cert-file": { kind: "string", help: "Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates." },
  "cluster-signing-key-file": { kind: "string", help: "Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates." },
  "cluster-signing-duration": { kind: "duration", default: 8760 * 3_600_000, help: "The max length of duration signed certificates will be given. Individual CSRs may request shorter certs by setting spec.expirationSeconds." },
  "node-monitor-grace-period": { kind: "duration", default: 50_000, help: "Amount of time which we allow running Node to be unresponsive before marking it unhealthy." },
  "node-monitor-period": { kind: "duration", default: 5_000, help: "The period for syncing NodeStatus in cloud-node-lifecycle-controller." },
  "node-eviction-rate": { kind: "number", default: 0.1, help: "Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy (see --unhealthy-zone-threshold for definition of healthy/unhealthy). Zone refers to entire cluster in non-multizone clusters." },
  "secondary-node-eviction-rate": { kind: "number", default: 0.01, help: "Number of nodes per second on which pods are deleted in case of node failure when a zone is unhealthy (see --unhealthy-zone-threshold for definition of healthy/unhealthy). Zone refers to entire cluster in non-multizone clusters. This value is implicitly overridden to 0 if the cluster size is smaller than --large-cluster-size-threshold." },
  "unhealthy-zone-threshold": { kind: "number", default: 0.55, help: "Fraction of Nodes in a zone which needs to be not Ready (minimum 3) for zone to be treated as unhealthy." },
  "large-cluster-size-threshold": { kind: "number", default: 50, help: "Number of nodes from which node-lifecycle-controller treats the cluster as large for the eviction logic purposes. --secondary-node-eviction-rate is implicitly overridden to 0 for clusters this size or smaller." },
  "resource-quota-sync-period": { kind: "duration", default: 300_000, help: "The period for syncing quota usage status in the system" },
  "legacy-service-account-token-clean-up-period": { kind: "duration", default: 8760 * 3_600_000, help: "The period of time since the last usage of an legacy service account token before it can be deleted." },
  "use-service-account-credentials": { kind: "boolean", default: false, help: "If true, use individual service account credentials for each controller." },
  profile: { kind: "string", default: "plat", help: "Naming profile of the platform: plat or kubernetes" },
  help: { kind: "boolean", help: "Print the flags and exit" },
};

export interface LeaderElectionSettings {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  name: string;
  namespace: string;
}

export interface ServingSettings {
  tls: TlsFlags;
  port: number;
  bindAddress: string;
  certDir?: string;
  certFile?: string;
  keyFile?: string;
}

/** The platform's lease name under a profile: `<system namespace prefix>-controller-manager`. */
export function defaultLeaseName(profile: PlatformProfile): string {
  return `${profile.systemNamespace.replace(/-system$/, "")}-controller-manager`;
}

function nonNegative(flags: FlagValues, name: string): number {
  const v = flags[name];
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new FlagError(`--${name} must be a number >= 0`);
  return v;
}

function positiveInteger(flags: FlagValues, name: string): void {
  if (!Number.isInteger(flags[name]) || (flags[name] as number) < 1) throw new FlagError(`--${name} must be a positive integer`);
}

function readFlagFile(flags: FlagValues, name: string): string | undefined {
  const path = flags[name] as string | undefined;
  if (!path) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new FlagError(`--${name}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** The gates of `--feature-gates`; a FlagError names the flag and the platform's reason. */
export function featureGates(flags: FlagValues): FeatureGates {
  try {
    return gatesFromFlag(CONTROLLER_MANAGER_GATES, (flags["feature-gates"] as string[] | undefined) ?? []);
  } catch (err) {
    throw new FlagError(`invalid argument for --feature-gates: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Validates the flags that do not need the profile (exit 2 on a FlagError). */
export function validateFlags(flags: FlagValues): void {
  featureGates(flags);
  if (!flags.kubeconfig) throw new FlagError("--kubeconfig is required");
  for (const f of ["concurrent-gc-syncs", "concurrent-namespace-syncs"]) positiveInteger(flags, f);
  const port = flags["secure-port"] as number;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new FlagError(`--secure-port ${port} must be between 0 and 65535, inclusive. 0 for turning off secure port`);
  if (flags["leader-elect-resource-lock"] !== "leases") throw new FlagError(`--leader-elect-resource-lock: unsupported lock type "${String(flags["leader-elect-resource-lock"])}": only "leases" is supported`);
  try {
    tlsServerOptions(tlsFlagsFrom(flags));
  } catch (err) {
    throw new FlagError(`--tls-min-version/--tls-cipher-suites: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!!flags["tls-cert-file"] !== !!flags["tls-private-key-file"]) throw new FlagError("--tls-cert-file and --tls-private-key-file must be given together");
  const cleanUpPeriod = flags["legacy-service-account-token-clean-up-period"] as number;
  if (!(cleanUpPeriod > 0)) throw new FlagError(`failed to init the legacy service account token cleaner: invalid CleanUpPeriod: ${formatDuration(cleanUpPeriod)}`);
  if (!!flags["cluster-signing-cert-file"] !== !!flags["cluster-signing-key-file"]) throw new FlagError("cannot specify --cluster-signing-cert-file without --cluster-signing-key-file or the reverse");
  if (flags["leader-elect"]) {
    try {
      validateLeaderElectionTimes(flags["leader-elect-lease-duration"] as number, flags["leader-elect-renew-deadline"] as number, flags["leader-elect-retry-period"] as number);
    } catch (err) {
      if (err instanceof LeaderElectionConfigError) throw new FlagError(`leader election: ${err.message}`);
      throw err;
    }
  }
}

export function leaderElectionSettings(flags: FlagValues, profile: PlatformProfile): LeaderElectionSettings {
  return {
    enabled: flags["leader-elect"] === true,
    leaseDurationMs: flags["leader-elect-lease-duration"] as number,
    renewDeadlineMs: flags["leader-elect-renew-deadline"] as number,
    retryPeriodMs: flags["leader-elect-retry-period"] as number,
    name: (flags["leader-elect-resource-name"] as string | undefined) || defaultLeaseName(profile),
    namespace: (flags["leader-elect-resource-namespace"] as string | undefined) || profile.systemNamespace,
  };
}

export function servingSettings(flags: FlagValues): ServingSettings {
  return {
    tls: tlsFlagsFrom(flags),
    port: flags["secure-port"] as number,
    bindAddress: flags["bind-address"] as string,
    certDir: (flags["cert-dir"] as string | undefined) || undefined,
    certFile: (flags["tls-cert-file"] as string | undefined) || undefined,
    keyFile: (flags["tls-private-key-file"] as string | undefined) || undefined,
  };
}

/** Reads the files the controllers use (errors name the flag). */
export function controllerSettings(flags: FlagValues): ControllerSettings {
  return {
    rootCaPem: readFlagFile(flags, "root-ca-file"),
    clusterSigningCertPem: readFlagFile(flags, "cluster-signing-cert-file"),
    clusterSigningKeyPem: readFlagFile(flags, "cluster-signing-key-file"),
    clusterSigningDurationMs: flags["cluster-signing-duration"] as number,
    nodeMonitorGracePeriodMs: flags["node-monitor-grace-period"] as number,
    nodeMonitorPeriodMs: flags["node-monitor-period"] as number,
    resourceQuotaSyncPeriodMs: flags["resource-quota-sync-period"] as number,
    legacyTokenCleanUpPeriodMs: flags["legacy-service-account-token-clean-up-period"] as number,
    nodeEviction: {
      evictionRate: nonNegative(flags, "node-eviction-rate"),
      secondaryEvictionRate: nonNegative(flags, "secondary-node-eviction-rate"),
      unhealthyZoneThreshold: nonNegative(flags, "unhealthy-zone-threshold"),
      largeClusterSizeThreshold: nonNegative(flags, "large-cluster-size-threshold"),
    },
  };
}
