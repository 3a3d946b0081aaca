/**
 * The client addresses of a request, as the platform's audit records them (`sourceIPs`):
 * the valid addresses of X-Forwarded-For in order, then X-Real-Ip unless already listed,
 * then the connection's remote address unless it is already the last one. Invalid
 * entries are skipped. Headers can be forged; the remote address is always included
 * because it cannot be. IPv4-mapped IPv6 addresses are written as IPv4, as Go prints them.
 */
import { isIP } from "node:net";

function parsedIp(text: string | null | undefined): string | undefined {
  const trimmed = text?.trim();
  if (!trimmed || isIP(trimmed) === 0) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return (mapped ? mapped[1] : trimmed).toLowerCase();
}

export function sourceIps(forwardedFor: string | null | undefined, realIp: string | null | undefined, remoteAddress: string | undefined): string[] {
  const ips: string[] = [];
  for (const part of forwardedFor ? forwardedFor.split(",") : []) {
    const ip = parsedIp(part);
    if (ip) ips.push(ip);
  }
  const real = parsedIp(realIp);
  if (real && !ips.includes(real)) ips.push(real);
  const remote = parsedIp(remoteAddress);
  if (remote && ips[ips.length - 1] !== remote) ips.push(remote);
  return ips;
}
