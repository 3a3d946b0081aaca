/**
 * core/v1 Node: spec (CIDRs, provider ID, taints), status (capacity,
 * conditions, addresses, system info, images, volumes, runtime handlers).
 */
import { bool, enumOf, int32, int64, list, obj, str, tag, time } from "../../schema/build.ts";
import type { KindDefinition, TableColumn } from "../../schema/types.ts";
import { ageColumn, listAt, objAt, strAt } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { C, conditionStatus, resourceList, taint } from "./core-v1-common.ts";
import type { PlatformProfile } from "../../platform/index.ts";

type Obj = Record<string, unknown>;

export const configMapNodeConfigSource = C(
  "ConfigMapNodeConfigSource",
  obj(
    { namespace: tag(1, str()), name: tag(2, str()), uid: tag(3, str()), resourceVersion: tag(4, str()), kubeletConfigKey: tag(5, str()) },
    { required: ["namespace", "name", "kubeletConfigKey"], description: "Deprecated: a ConfigMap holding node agent configuration." },
  ),
);

export const nodeConfigSource = C("NodeConfigSource", obj({ configMap: tag(2, configMapNodeConfigSource) }, { description: "Deprecated: source of node configuration." }));

export const nodeSpec = C(
  "NodeSpec",
  obj(
    {
      podCIDR: tag(1, str({ immutable: true, description: "Pod IP range of the node." })),
      podCIDRs: tag(7, list(str(), { listType: "set", patchStrategy: "merge", immutable: true, description: "Pod IP ranges, at most one per IP family." })),
      providerID: tag(3, str({ immutable: true, description: "Cloud provider ID (`<provider>://<id>`)." })),
      unschedulable: tag(4, bool({ description: "Cordoned: no new pods are scheduled." })),
      taints: tag(5, list(taint, { listType: "atomic", description: "Taints of the node." })),
      configSource: tag(6, nodeConfigSource),
      externalID: tag(2, str({ description: "Deprecated." })),
    },
    { description: "Desired state of a node." },
  ),
);

export const NODE_ADDRESS_TYPES = ["Hostname", "InternalIP", "ExternalIP", "InternalDNS", "ExternalDNS"];

export const nodeCondition = C(
  "NodeCondition",
  obj(
    {
      type: tag(1, str({ description: "Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable..." })),
      status: tag(2, conditionStatus()),
      lastHeartbeatTime: tag(3, time()),
      lastTransitionTime: tag(4, time()),
      reason: tag(5, str()),
      message: tag(6, str()),
    },
    { required: ["type", "status"], description: "A node condition." },
  ),
);

export const nodeAddress = C(
  "NodeAddress",
  obj({ type: tag(1, enumOf(NODE_ADDRESS_TYPES)), address: tag(2, str()) }, { required: ["type", "address"], description: "An address of the node." }),
);

export const nodeSystemInfo = C(
  "NodeSystemInfo",
  obj(
    {
      machineID: tag(1, str()),
      systemUUID: tag(2, str()),
      bootID: tag(3, str()),
      kernelVersion: tag(4, str()),
      osImage: tag(5, str()),
      containerRuntimeVersion: tag(6, str()),
      kubeletVersion: tag(7, str()),
      kubeProxyVersion: tag(8, str({ description: "Deprecated." })),
      operatingSystem: tag(9, str()),
      architecture: tag(10, str()),
      swap: tag(11, C("NodeSwapStatus", obj({ capacity: tag(1, int64()) }))),
    },
    {
      required: ["machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"],
      description: "Identity and versions reported by the node.",
    },
  ),
);

export const nodeConfigStatus = C(
  "NodeConfigStatus",
  obj({ assigned: tag(1, nodeConfigSource), active: tag(2, nodeConfigSource), lastKnownGood: tag(3, nodeConfigSource), error: tag(4, str()) }, { description: "Deprecated." }),
);

export const nodeStatus = C(
  "NodeStatus",
  obj(
    {
      capacity: tag(1, resourceList("Total resources of the node.")),
      allocatable: tag(2, resourceList("Resources available for scheduling; capacity by default.")),
      phase: tag(3, enumOf(["Pending", "Running", "Terminated"], { description: "Deprecated, never set." })),
      conditions: tag(4, list(nodeCondition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" })),
      addresses: tag(5, list(nodeAddress, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" })),
      daemonEndpoints: tag(
        6,
        C("NodeDaemonEndpoints", obj({ kubeletEndpoint: tag(1, C("DaemonEndpoint", obj({ Port: tag(1, int32()) }, { required: ["Port"] }))) })),
      ),
      nodeInfo: tag(7, nodeSystemInfo),
      images: tag(8, list(C("ContainerImage", obj({ names: tag(1, list(str(), { listType: "atomic" })), sizeBytes: tag(2, int64()) })), { listType: "atomic" })),
      volumesInUse: tag(9, list(str(), { listType: "atomic" })),
      volumesAttached: tag(10, list(C("AttachedVolume", obj({ name: tag(1, str()), devicePath: tag(2, str()) }, { required: ["name", "devicePath"] })), { listType: "atomic" })),
      config: tag(11, nodeConfigStatus),
      runtimeHandlers: tag(
        12,
        list(
          C(
            "NodeRuntimeHandler",
            obj({
              name: tag(1, str()),
              features: tag(2, C("NodeRuntimeHandlerFeatures", obj({ recursiveReadOnlyMounts: tag(1, bool()), userNamespaces: tag(2, bool()) }))),
            }),
          ),
          { listType: "atomic" },
        ),
      ),
      features: tag(13, C("NodeFeatures", obj({ supplementalGroupsPolicy: tag(1, bool()), containerUlimits: tag(2, bool()) }))),
      declaredFeatures: tag(14, list(str(), { listType: "atomic" })),
    },
    { description: "Observed state of a node." },
  ),
);

/** STATUS as the CLI prints it: `Ready`, `NotReady`, `Unknown`, plus `SchedulingDisabled` when cordoned. */
export function nodeStatusCell(node: Obj): string {
  const parts: string[] = [];
  const ready = listAt(node, "status.conditions").find((c) => strAt(c, "type") === "Ready");
  if (!ready) parts.push("Unknown");
  else parts.push(strAt(ready, "status") === "True" ? "Ready" : strAt(ready, "status") === "False" ? "NotReady" : "Unknown");
  if (objAt(node, "spec").unschedulable === true) parts.push("SchedulingDisabled");
  return parts.join(",");
}

const ROLE_PREFIX = "node-role.";

/** ROLES from `node-role.<domain>/<role>` labels (and the legacy role label with value). */
export function nodeRoles(node: Obj, profile: PlatformProfile): string {
  const roles = new Set<string>();
  // The label domain is the one of the well-known labels (`<domain>/hostname`).
  const domain = profile.labels.hostname.slice(0, profile.labels.hostname.lastIndexOf("/"));
  const prefix = `${ROLE_PREFIX}${domain}/`;
  const legacy = `${domain}/role`;
  for (const [k, v] of Object.entries(objAt(node, "metadata.labels"))) {
    if (k.startsWith(prefix) && k.length > prefix.length) roles.add(k.slice(prefix.length));
    else if (k === legacy && typeof v === "string" && v !== "") roles.add(v);
  }
  return roles.size === 0 ? "<none>" : [...roles].sort().join(",");
}

function address(node: Obj, type: string): string {
  const a = listAt(node, "status.addresses").find((x) => strAt(x, "type") === type);
  return a ? strAt(a, "address") : "<none>";
}

export function nodeColumns(profile: PlatformProfile): TableColumn[] {
  return [
    { name: "Status", type: "string", description: "Readiness and schedulability.", cell: nodeStatusCell },
    { name: "Roles", type: "string", description: "Node roles.", cell: (o) => nodeRoles(o, profile) },
    ageColumn,
    { name: "Version", type: "string", description: "Node agent version.", cell: (o) => strAt(o, "status.nodeInfo.kubeletVersion") },
    { name: "Internal-IP", type: "string", priority: 1, description: "Internal IP address.", cell: (o) => address(o, "InternalIP") },
    { name: "External-IP", type: "string", priority: 1, description: "External IP address.", cell: (o) => address(o, "ExternalIP") },
    { name: "OS-Image", type: "string", priority: 1, description: "OS image.", cell: (o) => strAt(o, "status.nodeInfo.osImage") || "<unknown>" },
    { name: "Kernel-Version", type: "string", priority: 1, description: "Kernel version.", cell: (o) => strAt(o, "status.nodeInfo.kernelVersion") || "<unknown>" },
    { name: "Container-Runtime", type: "string", priority: 1, description: "Container runtime version.", cell: (o) => strAt(o, "status.nodeInfo.containerRuntimeVersion") || "<unknown>" },
  ];
}

/** Allocatable defaults to capacity. */
function defaultNode(node: Obj): void {
  const status = node.status;
  if (typeof status !== "object" || status === null || Array.isArray(status)) return;
  const s = status as Obj;
  if (s.allocatable === undefined && typeof s.capacity === "object" && s.capacity !== null) s.allocatable = { ...(s.capacity as Obj) };
}

export function nodeKind(profile: PlatformProfile): KindDefinition {
  return {
    group: "core",
    version: "v1",
    kind: "Node",
    plural: "nodes",
    singular: "node",
    namespaced: false,
    shortNames: ["no"],
    subresources: ["status", "proxy"],
    schema: C("Node", objectKind({ spec: tag(2, nodeSpec), status: tag(3, nodeStatus) })),
    tableColumns: nodeColumns(profile),
    protobuf: true,
    allowUnconditionalUpdate: true,
    selectableFields: ["spec.unschedulable"],
    defaulter: defaultNode,
  };
}
