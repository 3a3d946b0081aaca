/**
 * The address and port ranges Services are allocated from, as pure code:
 * `--service-cluster-ip-range` (one CIDR per IP family, default 10.0.0.0/24) and
 * `--service-node-port-range` (default 30000-32767). A range is split as the platform
 * splits it: a lower band kept for addresses and ports that users ask for, and an upper
 * band that dynamic allocation tries first (then the lower band). In a CIDR the network
 * address and (IPv4) the broadcast address are never handed out.
 */

import { formatAddress, parseAddress, type IPFamily } from "../../../shared/api/groups/ip-text.ts";

export type { IPFamily };

export const DEFAULT_SERVICE_CIDRS = ["10.0.0.0/24"];
export const DEFAULT_NODE_PORT_RANGE = "30000-32767";

/** A contiguous run of allocatable values [first, last], and where its dynamic band starts. */
export interface ValueRange {
  first: bigint;
  last: bigint;
  /** Dynamic allocation tries [dynamicFirst, last] before [first, dynamicFirst). */
  dynamicFirst: bigint;
}

export interface CidrRange extends ValueRange {
  family: IPFamily;
  cidr: string;
}

/** An IP address as a number with its family; undefined when not an address (lenient, as older fields parse). */
export function parseIP(text: string): { family: IPFamily; value: bigint } | undefined {
  const ip = parseAddress(text);
  return ip && { family: ip.family, value: ip.value };
}

export const formatIP = formatAddress;

function bandStart(first: bigint, size: bigint, divisor: bigint, min: bigint, max: bigint): bigint {
  let offset = size / divisor;
  if (offset < min) offset = min;
  if (offset > max) offset = max;
  return offset >= size ? first : first + offset;
}

/** A `--service-cluster-ip-range` entry; throws a message naming the bad value. */
export function parseCidr(cidr: string): CidrRange {
  const [addr, bitsText] = cidr.trim().split("/");
  const ip = parseIP(addr ?? "");
  const width = ip?.family === "IPv6" ? 128 : 32;
  const bits = Number(bitsText);
  if (!ip || bitsText === undefined || !/^\d+$/.test(bitsText) || bits > width) throw new Error(`invalid CIDR address: ${cidr}`);
  const hostBits = BigInt(width - bits);
  const network = (ip.value >> hostBits) << hostBits;
  const size = 1n << hostBits;
  // The network address is never handed out; nor is the IPv4 broadcast address.
  const first = size > 2n ? network + 1n : network;
  const last = ip.family === "IPv4" && size > 2n ? network + size - 2n : network + size - 1n;
  const usable = last - first + 1n;
  return { family: ip.family, cidr: `${formatIP(ip.family, network)}/${bits}`, first, last, dynamicFirst: usable >= 16n ? bandStart(first, usable, 16n, 16n, 256n) : first };
}

/** `--service-node-port-range` (`30000-32767`, or one port); throws on a bad value. */
export function parsePortRange(text: string): ValueRange {
  const m = /^\s*(\d+)(?:\s*[-+]\s*(\d+))?\s*$/.exec(text);
  if (!m) throw new Error(`invalid port range ${JSON.stringify(text)}`);
  const base = Number(m[1]);
  const last = m[2] === undefined ? base : text.includes("+") ? base + Number(m[2]) : Number(m[2]);
  if (base < 1 || last > 65535 || last < base) throw new Error(`invalid port range ${JSON.stringify(text)}`);
  const size = BigInt(last - base + 1);
  return { first: BigInt(base), last: BigInt(last), dynamicFirst: bandStart(BigInt(base), size, 32n, 16n, 128n) };
}

export function inRange(r: ValueRange, v: bigint): boolean {
  return v >= r.first && v <= r.last;
}

/** Candidates in the order dynamic allocation tries them: the upper band from a start point, then the lower band. */
export function* candidates(r: ValueRange, start: bigint): Generator<bigint> {
  const upper = r.last - r.dynamicFirst + 1n;
  const from = upper > 0n ? r.dynamicFirst + (((start % upper) + upper) % upper) : r.first;
  for (let v = from; v <= r.last; v++) yield v;
  for (let v = r.dynamicFirst; v < from; v++) yield v;
  for (let v = r.first; v < r.dynamicFirst; v++) yield v;
}
