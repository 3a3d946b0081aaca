/**
 * The platform's IP and CIDR libraries: `ip(<string>)`, `isIP(<string>)`,
 * `ip.isCanonical(<string>)`, `string(<net.IP>)` and the methods family,
 * isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast,
 * isGlobalUnicast; `cidr(<string>)`, `isCIDR(<string>)`, `string(<net.CIDR>)`
 * and containsIP, containsCIDR (each with a string or a typed operand), ip,
 * masked, prefixLength. Parsing follows the platform's address parser: dotted
 * IPv4 without leading zeros, every IPv6 text form; zones and IPv4-mapped IPv6
 * addresses are refused. Error texts are the platform's, without the value.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { CelEvaluationError } from "../errors.ts";

export const IP_TYPE = "net.IP";
export const CIDR_TYPE = "net.CIDR";

/** An address: 4 or 16 bytes as one bigint. */
export class IPAddr {
  constructor(
    readonly family: 4 | 6,
    readonly value: bigint,
  ) {}

  get bits(): number {
    return this.family === 4 ? 32 : 128;
  }

  /** The canonical text (RFC 5952 for IPv6). */
  toString(): string {
    if (this.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((this.value >> s) & 0xffn)).join(".");
    const groups = Array.from({ length: 8 }, (_, i) => Number((this.value >> BigInt(112 - 16 * i)) & 0xffffn));
    let bestStart = -1;
    let bestLen = 0;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen && j - i >= 2) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    const hex = (g: number[]): string => g.map((x) => x.toString(16)).join(":");
    if (bestStart < 0) return hex(groups);
    return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
  }

  private inPrefix(prefix: bigint, len: number): boolean {
    const shift = BigInt(this.bits - len);
    return this.value >> shift === prefix >> shift;
  }

  isUnspecified(): boolean {
    return this.value === 0n;
  }
  isLoopback(): boolean {
    return this.family === 4 ? this.inPrefix(0x7f000000n, 8) : this.value === 1n;
  }
  isMulticast(): boolean {
    return this.family === 4 ? this.inPrefix(0xe0000000n, 4) : this.inPrefix(0xffn << 120n, 8);
  }
  isLinkLocalMulticast(): boolean {
    return this.family === 4 ? this.inPrefix(0xe0000000n, 24) : ((this.value >> 112n) & 0xff0fn) === 0xff02n;
  }
  isLinkLocalUnicast(): boolean {
    return this.family === 4 ? this.inPrefix(0xa9fe0000n, 16) : this.inPrefix(0xfe80n << 112n, 10);
  }
  isGlobalUnicast(): boolean {
    if (this.family === 4 && this.value === 0xffffffffn) return false;
    return !this.isUnspecified() && !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }
}

/** A network: an address (host bits kept as written) and a prefix length. */
export class CIDR {
  constructor(
    readonly addr: IPAddr,
    readonly prefixLength: number,
  ) {}

  masked(): CIDR {
    const host = BigInt(this.addr.bits - this.prefixLength);
    return new CIDR(new IPAddr(this.addr.family, (this.addr.value >> host) << host), this.prefixLength);
  }

  containsIP(ip: IPAddr): boolean {
    if (ip.family !== this.addr.family) return false;
    const host = BigInt(this.addr.bits - this.prefixLength);
    return ip.value >> host === this.addr.value >> host;
  }

  containsCIDR(other: CIDR): boolean {
    return other.prefixLength >= this.prefixLength && this.containsIP(other.addr);
  }

  toString(): string {
    return `${this.addr.toString()}/${this.prefixLength}`;
  }
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return undefined;
    v = (v << 8n) | BigInt(p);
  }
  return v;
}

function parseIPv6(s: string): bigint | undefined {
  let tail: bigint | undefined;
  let text = s;
  const lastColon = s.lastIndexOf(":");
  if (s.slice(lastColon + 1).includes(".")) {
    tail = parseIPv4(s.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    text = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (h: string): string[] | undefined => (h === "" ? [] : h.split(":"));
  const head = groupsOf(halves[0]);
  const rest = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (!head || !rest) return undefined;
  const all = [...head, ...rest];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  if (halves.length === 1 ? all.length !== 8 : all.length > 7) return undefined;
  const groups = [...head, ...Array<string>(8 - all.length).fill("0"), ...rest];
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(parseInt(g, 16));
  if (tail !== undefined) v = (v & ~0xffffffffn) | tail;
  return v;
}

const IP_PARSE_ERROR = "IP Address parse error during conversion from string";

/** Parses an address; throws CelEvaluationError with the platform's texts. */
export function parseIP(s: string): IPAddr {
  if (s.includes("%")) {
    const bare = s.slice(0, s.indexOf("%"));
    if (s.length > bare.length + 1 && bare.includes(":") && parseIPv6(bare) !== undefined) throw new CelEvaluationError("IP address with zone value is not allowed");
    throw new CelEvaluationError(IP_PARSE_ERROR);
  }
  if (!s.includes(":")) {
    const v4 = parseIPv4(s);
    if (v4 === undefined) throw new CelEvaluationError(IP_PARSE_ERROR);
    return new IPAddr(4, v4);
  }
  const v6 = parseIPv6(s);
  if (v6 === undefined) throw new CelEvaluationError(IP_PARSE_ERROR);
  if (v6 >> 32n === 0xffffn) throw new CelEvaluationError("IPv4-mapped IPv6 address is not allowed");
  return new IPAddr(6, v6);
}

const CIDR_PARSE_ERROR = "network address parse error during conversion from string";

/** Parses `<address>/<bits>`; host bits may be set. */
export function parseCIDR(s: string): CIDR {
  const slash = s.lastIndexOf("/");
  if (slash < 0) throw new CelEvaluationError(CIDR_PARSE_ERROR);
  const bitsText = s.slice(slash + 1);
  const addrText = s.slice(0, slash);
  if (addrText.includes("%")) throw new CelEvaluationError(CIDR_PARSE_ERROR);
  let addr: IPAddr;
  try {
    addr = parseIP(addrText);
  } catch (err) {
    if (err instanceof CelEvaluationError && err.message.startsWith("IPv4-mapped")) throw err;
    throw new CelEvaluationError(CIDR_PARSE_ERROR);
  }
  if (!/^(0|[1-9][0-9]{0,2})$/.test(bitsText) || Number(bitsText) > addr.bits) throw new CelEvaluationError(CIDR_PARSE_ERROR);
  return new CIDR(addr, Number(bitsText));
}

const succeeds = (f: () => unknown): boolean => {
  try {
    f();
    return true;
  } catch {
    return false;
  }
};

class IPNamespace {}

/** Registers net.IP and net.CIDR with their functions. */
export function registerNet(env: Environment): Environment {
  const I = IP_TYPE;
  const C = CIDR_TYPE;
  return env
    .registerType(I, IPAddr)
    .registerType(C, CIDR)
    .registerType("kubernetes.IPNamespace", IPNamespace)
    .registerConstant("ip", "kubernetes.IPNamespace", new IPNamespace())
    .registerFunction(`ip(string): ${I}`, (s: string) => parseIP(s))
    .registerFunction("isIP(string): bool", (s: string) => succeeds(() => parseIP(s)))
    .registerFunction("kubernetes.IPNamespace.isCanonical(string): bool", (_ns: IPNamespace, s: string) => parseIP(s).toString() === s)
    .registerFunction(`string(${I}): string`, (ip: IPAddr) => ip.toString())
    .registerFunction(`${I}.family(): int`, (ip: IPAddr) => BigInt(ip.family))
    .registerFunction(`${I}.isUnspecified(): bool`, (ip: IPAddr) => ip.isUnspecified())
    .registerFunction(`${I}.isLoopback(): bool`, (ip: IPAddr) => ip.isLoopback())
    .registerFunction(`${I}.isLinkLocalMulticast(): bool`, (ip: IPAddr) => ip.isLinkLocalMulticast())
    .registerFunction(`${I}.isLinkLocalUnicast(): bool`, (ip: IPAddr) => ip.isLinkLocalUnicast())
    .registerFunction(`${I}.isGlobalUnicast(): bool`, (ip: IPAddr) => ip.isGlobalUnicast())
    .registerOperator(`${I} == ${I}`, (a: IPAddr, b: IPAddr) => a.family === b.family && a.value === b.value)
    .registerFunction(`cidr(string): ${C}`, (s: string) => parseCIDR(s))
    .registerFunction("isCIDR(string): bool", (s: string) => succeeds(() => parseCIDR(s)))
    .registerFunction(`string(${C}): string`, (c: CIDR) => c.toString())
    .registerFunction(`${C}.containsIP(string): bool`, (c: CIDR, s: string) => c.containsIP(parseIP(s)))
    .registerFunction(`${C}.containsIP(${I}): bool`, (c: CIDR, ip: IPAddr) => c.containsIP(ip))
    .registerFunction(`${C}.containsCIDR(string): bool`, (c: CIDR, s: string) => c.containsCIDR(parseCIDR(s)))
    .registerFunction(`${C}.containsCIDR(${C}): bool`, (c: CIDR, o: CIDR) => c.containsCIDR(o))
    .registerFunction(`${C}.ip(): ${I}`, (c: CIDR) => c.addr)
    .registerFunction(`${C}.masked(): ${C}`, (c: CIDR) => c.masked())
    .registerFunction(`${C}.prefixLength(): int`, (c: CIDR) => BigInt(c.prefixLength))
    .registerOperator(`${C} == ${C}`, (a: CIDR, b: CIDR) => a.prefixLength === b.prefixLength && a.addr.family === b.addr.family && a.addr.value === b.addr.value);
}
