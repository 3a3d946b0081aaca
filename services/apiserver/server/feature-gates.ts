/**
 * The apiserver's feature gates: its table of release 1.35's gates (with their
 * version history) over the shared registry and parser (shared/featuregate/gates.ts),
 * resolved at the binary's release unless an emulated version is given.
 */
import { alpha, ALL_ALPHA_BETA, beta, deprecated, FeatureGates as VersionedFeatureGates, featureGatesHelp as gatesHelp, gaLocked, type VersionedGateSpec } from "../../../shared/featuregate/gates.ts";
import { BINARY_VERSION, type MinorVersion } from "./effective-version.ts";

export { FeatureGateError, specAt, type GateSpec, type GateStage, type VersionedGateSpec } from "../../../shared/featuregate/gates.ts";

/** The gates of release 1.35 that touch what this server implements, with their history. */
export const VERSIONED_GATES: Readonly<Record<string, readonly VersionedGateSpec[]>> = {
  ...ALL_ALPHA_BETA,
  APIResponseCompression: [alpha("1.8"), beta("1.16")],
  AggregatedDiscoveryRemoveBetaType: [{ since: "1.0", stage: "GA", default: false }, deprecated("1.33", true), deprecated("1.35", true, true)],
  AllowUnsafeMalformedObjectDeletion: [alpha("1.32")],
  AnonymousAuthConfigurableEndpoints: [alpha("1.31"), beta("1.32"), gaLocked("1.34")],
  AuthorizeWithSelectors: [alpha("1.31"), beta("1.32"), gaLocked("1.34")],
  BtreeWatchCache: [beta("1.32"), gaLocked("1.33")],
  CBORServingAndStorage: [alpha("1.32")],
  ConsistentListFromCache: [alpha("1.28"), beta("1.31"), gaLocked("1.34")],
  ContainerCheckpoint: [alpha("1.25"), beta("1.30")],
  DeclarativeValidation: [beta("1.33")],
  DeclarativeValidationTakeover: [beta("1.33", false)],
  ListFromCacheSnapshot: [alpha("1.33"), beta("1.34")],
  MutatingAdmissionPolicy: [alpha("1.32"), beta("1.34", false)],
  ResilientWatchCacheInitialization: [beta("1.31"), gaLocked("1.34")],
  RetryGenerateName: [alpha("1.30"), beta("1.31"), gaLocked("1.32")],
  SizeBasedListCostEstimate: [beta("1.34")],
  StreamingCollectionEncodingToJSON: [beta("1.33"), gaLocked("1.34")],
  StreamingCollectionEncodingToProtobuf: [beta("1.33"), gaLocked("1.34")],
  StructuredAuthenticationConfiguration: [alpha("1.29"), beta("1.30"), gaLocked("1.34")],
  StructuredAuthenticationConfigurationEgressSelector: [beta("1.34")],
  StructuredAuthorizationConfiguration: [alpha("1.29"), beta("1.30"), gaLocked("1.32")],
  WatchFromStorageWithoutResourceVersion: [beta("1.27", false), deprecated("1.33", false, true)],
  WatchList: [alpha("1.27"), beta("1.32"), beta("1.33", false), beta("1.34")],
};

/** The apiserver's gates: its table unless another is given, at the binary's release unless emulating another. */
export class FeatureGates extends VersionedFeatureGates {
  constructor(opts: { emulationVersion?: MinorVersion; known?: Readonly<Record<string, readonly VersionedGateSpec[]>> } = {}) {
    super({ emulationVersion: opts.emulationVersion ?? BINARY_VERSION, known: opts.known ?? VERSIONED_GATES });
  }
}

/** The `--feature-gates` help of the apiserver's gates (at the binary's release by default). */
export function featureGatesHelp(gates: VersionedFeatureGates = new FeatureGates()): string {
  return gatesHelp(gates);
}
