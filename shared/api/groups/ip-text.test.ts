import { describe, expect, it } from "vitest";
import { cidrContains, cidrErrors, formatAddress, ipErrors, parseAddress, parseCidrText } from "./ip-text.ts";

describe("ipErrors (strict IP fields and IPAddress names)", () => {
  it.each([
    ["10.0.0.1", []],
    ["2001:db8::1", []],
    ["::", []],
    ["::1", []],
    ["2001:db8:0:0:1:0:0:1", ['must be in canonical form ("2001:db8::1:0:0:1")']],
    ["2001:DB8::1", ['must be in canonical form ("2001:db8::1")']],
    ["2001:db8:0:0:0::1", ['must be in canonical form ("2001:db8::1")']],
    ["2001:0db8::1", ['must be in canonical form ("2001:db8::1")']],
    ["10.01.2.3", ["must not have leading 0s"]],
    ["::ffff:1.2.3.4", ["must not be an IPv4-mapped IPv6 address"]],
    ["64:ff9b::1.2.3.4", ['must be in canonical form ("64:ff9b::102:304")']],
    ["10.0.0.256", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]],
    ["1:2:3:4:5:6:7:8:9", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]],
    ["1::2::3", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]],
    ["1:2:3:4:5:6:7::8", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]],
    ["", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]],
    ["web", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]],
  ])("%s", (text, expected) => {
    expect(ipErrors(text)).toEqual(expected);
  });
});

describe("cidrErrors (ServiceCIDR spec.cidrs)", () => {
  it.each([
    ["10.0.0.0/24", []],
    ["fd00:10:96::/112", []],
    ["0.0.0.0/0", []],
    ["10.0.0.1/24", ["must not have bits set beyond the prefix length"]],
    ["10.0.0.0/024", ["must not have leading 0s in IP or prefix length"]],
    ["010.0.0.0/24", ["must not have leading 0s in IP or prefix length"]],
    ["::ffff:10.0.0.0/120", ["must not have an IPv4-mapped IPv6 address"]],
    ["FD00::/64", ['must be in canonical form ("fd00::/64")']],
    ["fd00:0:0::/64", ['must be in canonical form ("fd00::/64")']],
    ["10.0.0.0", ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]],
    ["10.0.0.0/33", ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]],
    ["10.0.0.0/", ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]],
  ])("%s", (text, expected) => {
    expect(cidrErrors(text)).toEqual(expected);
  });
});

describe("parsing and containment", () => {
  it.each([
    ["10.0.0.0/28", "10.0.0.15", true],
    ["10.0.0.0/28", "10.0.0.16", false],
    ["10.0.0.0/28", "::a", false],
    ["fd00::/120", "fd00::ff", true],
    ["fd00::/120", "fd00::100", false],
    ["0.0.0.0/0", "255.255.255.255", true],
  ])("%s contains %s: %s", (cidr, ip, expected) => {
    const c = parseCidrText(cidr);
    const a = parseAddress(ip);
    expect(c && a && cidrContains(c, a)).toBe(expected);
  });

  it("formats the longest zero run as :: (the first of equal runs), single zero groups kept", () => {
    expect(formatAddress("IPv6", parseAddress("1:0:0:2:0:0:0:3")?.value ?? 0n)).toBe("1:0:0:2::3");
    expect(formatAddress("IPv6", parseAddress("1:0:0:2:3:0:0:4")?.value ?? 0n)).toBe("1::2:3:0:0:4");
    expect(formatAddress("IPv6", parseAddress("1:0:2:3:4:5:6:7")?.value ?? 0n)).toBe("1:0:2:3:4:5:6:7");
    expect(formatAddress("IPv4", parseAddress("10.0.0.010")?.value ?? 0n)).toBe("10.0.0.10");
  });
});
