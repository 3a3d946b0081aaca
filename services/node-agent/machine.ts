/**
 * Facts about the machine the agent reports in its Node: CPUs, memory, ephemeral
 * storage under the root dir, kernel, OS image, machine/boot ids and the first
 * non-loopback IPv4 address (unless `--node-ip` names one). Unreadable files leave
 * their field empty rather than failing the agent.
 */
import { readFileSync, statfsSync } from "node:fs";
import { cpus, hostname, networkInterfaces, release, totalmem } from "node:os";
import type { MachineFacts } from "./node-object.ts";
import { platformArch, platformOs } from "./node-object.ts";

function readTrim(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

function osImage(): string {
  const text = readTrim("/etc/os-release");
  const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
  return m ? m[1] : platformOs(process.platform);
}

function firstIPv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return undefined;
}

/** The machine's default host name in the form node names take (lower case). */
export function defaultNodeName(): string {
  return hostname().trim().toLowerCase();
}

export function machineFacts(o: { nodeName: string; rootDir: string; nodeIP?: string }): MachineFacts {
  let ephemeralStorageBytes: number | undefined;
  try {
    const s = statfsSync(o.rootDir);
    ephemeralStorageBytes = s.blocks * s.bsize;
  } catch {
    ephemeralStorageBytes = undefined;
  }
  return {
    hostname: o.nodeName,
    internalIP: o.nodeIP || firstIPv4(),
    cpus: cpus().length,
    memoryBytes: totalmem(),
    ephemeralStorageBytes,
    os: platformOs(process.platform),
    arch: platformArch(process.arch),
    kernelVersion: release(),
    osImage: osImage(),
    machineID: readTrim("/etc/machine-id"),
    systemUUID: readTrim("/sys/class/dmi/id/product_uuid"),
    bootID: readTrim("/proc/sys/kernel/random/boot_id"),
  };
}
