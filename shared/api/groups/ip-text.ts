/**
 * IP addresses and CIDRs as text, with the platform's parsing rules (pure code):
 * `parseAddress` is the lenient parser older fields use (IPv4 octets may carry leading
 * zeros, IPv6 may end in a dotted IPv4 part); `ipErrors` and `cidrErrors` are the strict
 * checks of newer fields (IPAddress names, ServiceCIDR cidrs), returning the platform's
 * detail messages; `formatAddress` writes the canonical form (dotted IPv4, RFC 5952 IPv6).
 */

export type IPFamily = "IPv4" | "IPv6";

export interface ParsedAddress {
  family: IPFamily;
  /** The address as a number (32 or 128 bits). */
  value: bigint;
  /** An IPv4 octet had a leading zero (accepted leniently, refused strictly). */
  leadingZeros: boolean;
}

const IPV4_MAPPED_PREFIX = 0xffffn << 32n;

function parseIPv4(text: string): { value: bigint; leadingZeros: boolean } | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return { value: parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n), leadingZeros: parts.some((p) => p.length > 1 && p.startsWith("0")) };
}

function parseGroups(text: string): string[] {
  return text === "" ? [] : text.split(":");
}

function parseIPv6(text: string): { value: bigint; leadingZeros: boolean } | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.split("::").length > 2) return undefined;
  let tail4: { value: bigint; leadingZeros: boolean } | undefined;
  let body = text;
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".")) {
    tail4 = parseIPv4(text.slice(lastColon + 1));
    if (!tail4) return undefined;
    // The dotted part stands for the last two groups.
    body = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const compressed = body.includes("::");
  const [headText, tailText] = compressed ? body.split("::") : [body, ""];
  const head = parseGroups(headText);
  const tail = parseGroups(tailText);
  const missing = 8 - head.length - tail.length;
  if ((compressed && missing < 1) || (!compressed && missing !== 0)) return undefined;
  const groups = [...head, ...Array<string>(compressed ? missing : 0).fill("0"), ...tail];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  let value = groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
  if (tail4) value = (value & ~0xffffffffn) | tail4.value;
  return { value, leadingZeros: tail4?.leadingZeros ?? false };
}

/** The lenient parse; undefined when the text is no address. */
export function parseAddress(text: string): ParsedAddress | undefined {
  const v4 = text.includes(":") ? undefined : parseIPv4(text);
  if (v4) return { family: "IPv4", ...v4 };
  const v6 = text.includes(":") ? parseIPv6(text) : undefined;
  return v6 ? { family: "IPv6", ...v6 } : undefined;
}

function isIPv4Mapped(a: ParsedAddress): boolean {
  return a.family === "IPv6" && a.value >> 32n === IPV4_MAPPED_PREFIX >> 32n;
}

/** Canonical text: dotted decimal for IPv4, RFC 5952 (lower case, longest zero run as `::`) for IPv6. */
export function formatAddress(family: IPFamily, value: bigint): string {
  if (family === "IPv4") return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join(".");
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((value >> BigInt(i * 16)) & 0xffffn).toString(16));
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

/** The strict check of an IP address field or name: the platform's detail messages, none when valid. */
export function ipErrors(text: string): string[] {
  const ip = parseAddress(text);
  if (!ip) return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"];
  const errs: string[] = [];
  if (ip.leadingZeros) errs.push("must not have leading 0s");
  if (isIPv4Mapped(ip)) errs.push("must not be an IPv4-mapped IPv6 address");
  if (errs.length > 0) return errs;
  const canonical = formatAddress(ip.family, ip.value);
  return canonical === text ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
}

export interface ParsedCidr {
  family: IPFamily;
  /** The network address (host bits cleared). */
  network: bigint;
  bits: number;
}

/** The lenient CIDR parse (host bits may be set, leading zeros allowed); undefined when no CIDR. */
export function parseCidrText(text: string): (ParsedCidr & { address: ParsedAddress; prefixText: string }) | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const address = parseAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const width = address.family === "IPv4" ? 32 : 128;
  const bits = Number(prefixText);
  if (bits > width) return undefined;
  const hostBits = BigInt(width - bits);
  return { family: address.family, network: (address.value >> hostBits) << hostBits, bits, address, prefixText };
}

export function formatCidr(c: ParsedCidr): string {
  return `${formatAddress(c.family, c.network)}/${c.bits}`;
}

/** The strict check of a CIDR field (ServiceCIDR `spec.cidrs`): the platform's detail messages. */
export function cidrErrors(text: string): string[] {
  const c = parseCidrText(text);
  if (!c) return ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"];
  if (c.address.leadingZeros || (c.prefixText.length > 1 && c.prefixText.startsWith("0"))) return ["must not have leading 0s in IP or prefix length"];
  if (isIPv4Mapped(c.address)) return ["must not have an IPv4-mapped IPv6 address"];
  if (c.address.value !== c.network) return ["must not have bits set beyond the prefix length"];
  const canonical = formatCidr(c);
  return canonical === text ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
}

/** True when `ip` lies in `cidr` (same family, same network bits). */
export function cidrContains(cidr: ParsedCidr, ip: { family: IPFamily; value: bigint }): boolean {
  if (cidr.family !== ip.family) return false;
  const hostBits = BigInt((cidr.family === "IPv4" ? 32 : 128) - cidr.bits);
  return (ip.value >> hostBits) << hostBits === cidr.network;
}
