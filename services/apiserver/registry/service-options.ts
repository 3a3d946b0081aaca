/** The Service network flags of the apiserver: `--service-cluster-ip-range` and `--service-node-port-range`. */
import type { FlagSpec, FlagValues } from "../../../shared/cli/flags.ts";
import { serviceNetwork, type ServiceNetwork } from "./service-allocation.ts";
import { DEFAULT_NODE_PORT_RANGE, DEFAULT_SERVICE_CIDRS } from "./service-ranges.ts";

export const SERVICE_NETWORK_FLAGS: Record<string, FlagSpec> = {
  "service-cluster-ip-range": { kind: "string", default: DEFAULT_SERVICE_CIDRS.join(","), help: "CIDRs of Service cluster IPs: one, or one IPv4 and one IPv6 separated by a comma (dual stack)" },
  "service-node-port-range": { kind: "string", default: DEFAULT_NODE_PORT_RANGE, help: "ports reserved for Services of type NodePort or LoadBalancer (e.g. 30000-32767), inclusive" },
};

/** The ranges from parsed flags; a bad value throws a message naming it (start-up fails). */
export function serviceNetworkFrom(flags: FlagValues): ServiceNetwork {
  const cidrs = String(flags["service-cluster-ip-range"] ?? DEFAULT_SERVICE_CIDRS.join(","))
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "");
  return serviceNetwork(cidrs, String(flags["service-node-port-range"] ?? DEFAULT_NODE_PORT_RANGE));
}
