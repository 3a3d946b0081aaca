/**
 * The node agent's feature gates (`--feature-gates=Name=bool,...`) over the shared
 * registry and parser (shared/featuregate/gates.ts), with release 1.35's history of
 * ContainerCheckpoint and KubeletFineGrainedAuthz (both beta and on). Unknown names,
 * non-boolean values and locked gates are errors with the platform's wording.
 */
import { ALL_ALPHA_BETA, alpha, beta, gatesFromFlag, type VersionedGateSpec } from "../../shared/featuregate/gates.ts";

export { FeatureGateError } from "../../shared/featuregate/gates.ts";

export const NODE_AGENT_GATES: Readonly<Record<string, readonly VersionedGateSpec[]>> = {
  ...ALL_ALPHA_BETA,
  ContainerCheckpoint: [alpha("1.25"), beta("1.30")],
  KubeletFineGrainedAuthz: [alpha("1.32"), beta("1.33")],
};

export type NodeAgentGate = "ContainerCheckpoint" | "KubeletFineGrainedAuthz";
export type GateStates = Record<NodeAgentGate, boolean>;

/** Gate states from the flag's `Name=bool` entries (already split on commas). */
export function parseFeatureGates(entries: readonly string[]): GateStates {
  const gates = gatesFromFlag(NODE_AGENT_GATES, entries);
  return { ContainerCheckpoint: gates.enabled("ContainerCheckpoint"), KubeletFineGrainedAuthz: gates.enabled("KubeletFineGrainedAuthz") };
}
