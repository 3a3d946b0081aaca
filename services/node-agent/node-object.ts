/**
 * The Node object the agent registers (pure given its inputs): the well-known labels
 * (hostname, os, arch) from the naming profile plus `--node-labels`, capacity and
 * allocatable (cpu, memory, pods, ephemeral-storage), addresses (InternalIP, Hostname),
 * node info, the daemon endpoint, and the conditions computed at `now`.
 */
import type { ApiObject } from "../../shared/client/object-client.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import { observeConditions, updateConditions, type Health, type NodeStatusBody } from "./node-status.ts";

/** Memory the hard eviction threshold keeps back from allocatable (`memory.available<100Mi`). */
export const EVICTION_HARD_MEMORY_KI = 100 * 1024;
export const AGENT_VERSION = "v1.35.0";

export interface MachineFacts {
  hostname: string;
  internalIP?: string;
  cpus: number;
  memoryBytes: number;
  ephemeralStorageBytes?: number;
  /** Node's operating system and architecture as the platform names them (`linux`, `amd64`). */
  os: string;
  arch: string;
  kernelVersion: string;
  osImage: string;
  machineID: string;
  systemUUID: string;
  bootID: string;
}

export interface NodeShape {
  name: string;
  labels: Record<string, string>;
  maxPods: number;
  port: number;
  /** `<runtime name>://<runtime version>` from the CRI Version call, or empty. */
  containerRuntimeVersion: string;
}

/** Node's `process.arch` in the platform's spelling (GOARCH). */
export function platformArch(nodeArch: string): string {
  const map: Record<string, string> = { x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64" };
  return map[nodeArch] ?? nodeArch;
}

/** Node's `process.platform` as GOOS. */
export function platformOs(nodePlatform: string): string {
  return nodePlatform === "win32" ? "windows" : nodePlatform;
}

export function wellKnownLabels(profile: PlatformProfile, name: string, m: Pick<MachineFacts, "os" | "arch">): Record<string, string> {
  return { [profile.labels.arch]: m.arch, [profile.labels.hostname]: name, [profile.labels.os]: m.os };
}

/** The status fields the agent owns (everything but conditions) for the machine. */
export function machineStatus(m: MachineFacts, shape: NodeShape): Omit<NodeStatusBody, "conditions"> {
  const memoryKi = Math.floor(m.memoryBytes / 1024);
  const capacity: Record<string, string> = { cpu: String(m.cpus), memory: `${memoryKi}Ki`, pods: String(shape.maxPods) };
  if (m.ephemeralStorageBytes !== undefined) capacity["ephemeral-storage"] = `${Math.floor(m.ephemeralStorageBytes / 1024)}Ki`;
  const allocatable = { ...capacity, memory: `${Math.max(0, memoryKi - EVICTION_HARD_MEMORY_KI)}Ki` };
  const addresses = [...(m.internalIP ? [{ type: "InternalIP", address: m.internalIP }] : []), { type: "Hostname", address: m.hostname }];
  return {
    capacity,
    allocatable,
    addresses,
    daemonEndpoints: { kubeletEndpoint: { Port: shape.port } },
    nodeInfo: {
      machineID: m.machineID,
      systemUUID: m.systemUUID,
      bootID: m.bootID,
      kernelVersion: m.kernelVersion,
      osImage: m.osImage,
      containerRuntimeVersion: shape.containerRuntimeVersion,
      kubeletVersion: AGENT_VERSION,
      // Deprecated; the platform's agent leaves it empty since the proxy's version is not its to know.
      kubeProxyVersion: "",
      operatingSystem: m.os,
      architecture: m.arch,
    },
  };
}

/** The full status at `now` given the previous conditions and the health observed. */
export function nodeStatus(m: MachineFacts, shape: NodeShape, previous: NodeStatusBody | undefined, health: Health, now: string): NodeStatusBody {
  return { ...machineStatus(m, shape), conditions: updateConditions(previous?.conditions, observeConditions(health), now) };
}

/** The Node to create at registration. */
export function initialNode(profile: PlatformProfile, m: MachineFacts, shape: NodeShape, health: Health, now: string): ApiObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: shape.name, labels: { ...wellKnownLabels(profile, shape.name, m), ...shape.labels } },
    spec: {},
    status: nodeStatus(m, shape, undefined, health, now),
  };
}
