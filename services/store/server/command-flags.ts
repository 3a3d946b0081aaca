/**
 * The store node command's whole flag table: the node's flags (node-flags.ts) and
 * `--feature-gates` over the store's gates (etcd 3.6's, which are not versioned by
 * the platform's releases). `--help` lists exactly these.
 */
import { ALL_ALPHA_BETA, alpha, beta, featureGatesFlag, type VersionedGateSpec } from "../../../shared/featuregate/gates.ts";
import { STORE_FLAGS } from "./node-flags.ts";

export const STORE_GATES: Readonly<Record<string, readonly VersionedGateSpec[]>> = {
  ...ALL_ALPHA_BETA,
  CompactHashCheck: [alpha("0.0")],
  InitialCorruptCheck: [alpha("0.0")],
  StopGRPCServiceOnDefrag: [alpha("0.0")],
  TxnModeWriteWithSharedBuffer: [beta("0.0")],
};

export const STORE_COMMAND_FLAGS = { ...STORE_FLAGS, "feature-gates": featureGatesFlag(STORE_GATES) };
