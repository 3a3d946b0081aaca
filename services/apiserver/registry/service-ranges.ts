/**
 * The address and port ranges Services are allocated from, as pure code:
 * `--service-cluster-ip-range` (one CIDR per IP family, default 10.0.0.0/24) and
 * `--service-node-port-range` (default 30000-32767). A range is split as the platform
 * splits it: a lower band kept for addresses and ports that users ask for, and an upper
 * band that dynamic allocation tries first (then the lower band). In a CIDR the network
 * address and (IPv4) the broadcast address are never handed out.
 */

export type IPFamily = "IPv4" | "IPv6";

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

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
}

function parseIPv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:]+$/.test(text) || text.split("::").length > 2) return undefined;
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const missing = 8 - h.length - t.length;
  if ((tail === undefined && missing !== 0) || missing < 0) return undefined;
  const groups = [...h, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...t];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** An IP address as a number with its family; undefined when not an address. */
export function parseIP(text: string): { family: IPFamily; value: bigint } | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return { family: "IPv4", value: v4 };
  const v6 = text.includes(":") ? parseIPv6(text) : undefined;
  return v6 === undefined ? undefined : { family: "IPv6", value: v6 };
}

export function formatIP(family: IPFamily, value: bigint): string {
  if (family === "IPv4") return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join(".");
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
  // The longest run of zero groups (two or more) becomes "::".
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  if (best < 0) return groups.join(":");
  return `${groups.slice(0, best).join(":")}::${groups.slice(best + bestLen).join(":")}`;
}

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
