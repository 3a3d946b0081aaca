/**
 * The node agent's feature gates (`--feature-gates=Name=bool,...`), with the states of
 * release 1.35: ContainerCheckpoint (beta, on) and KubeletFineGrainedAuthz (beta, on).
 * Unknown names and non-boolean values are errors naming them.
 */

export const NODE_AGENT_GATES = {
  ContainerCheckpoint: { default: true, stage: "BETA" },
  KubeletFineGrainedAuthz: { default: true, stage: "BETA" },
} as const;

export type NodeAgentGate = keyof typeof NODE_AGENT_GATES;
export type GateStates = Record<NodeAgentGate, boolean>;

export class FeatureGateError extends Error {}

const TRUE = /^(1|t|T|TRUE|true|True)$/;
const FALSE = /^(0|f|F|FALSE|false|False)$/;

/** Gate states from the flag's `Name=bool` entries (already split on commas). */
export function parseFeatureGates(entries: readonly string[]): GateStates {
  const states = Object.fromEntries(Object.entries(NODE_AGENT_GATES).map(([k, v]) => [k, v.default])) as GateStates;
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    const eq = entry.indexOf("=");
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${entry}`);
    const name = entry.slice(0, eq).trim();
    const value = entry.slice(eq + 1).trim();
    if (!Object.hasOwn(NODE_AGENT_GATES, name)) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
    if (TRUE.test(value)) states[name as NodeAgentGate] = true;
    else if (FALSE.test(value)) states[name as NodeAgentGate] = false;
    else throw new FeatureGateError(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  return states;
}
