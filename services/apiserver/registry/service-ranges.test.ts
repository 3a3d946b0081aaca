import { describe, expect, it } from "vitest";
import { candidates, formatIP, parseCidr, parseIP, parsePortRange } from "./service-ranges.ts";
import { keepAllocatedValues } from "./service-update.ts";

describe("CIDR ranges", () => {
  it.each([
    ["10.0.0.0/24", "IPv4", "10.0.0.1", "10.0.0.254", "10.0.0.17"],
    ["10.0.0.7/24", "IPv4", "10.0.0.1", "10.0.0.254", "10.0.0.17"],
    ["10.96.0.0/12", "IPv4", "10.96.0.1", "10.111.255.254", "10.96.1.1"],
    ["10.0.0.0/28", "IPv4", "10.0.0.1", "10.0.0.14", "10.0.0.1"],
    ["fd00::/120", "IPv6", "fd00::1", "fd00::ff", "fd00::11"],
  ])("%s", (cidr, family, first, last, dynamicFirst) => {
    const r = parseCidr(cidr);
    expect(r.family).toBe(family);
    expect([formatIP(r.family, r.first), formatIP(r.family, r.last), formatIP(r.family, r.dynamicFirst)]).toEqual([first, last, dynamicFirst]);
  });

  it.each([["10.0.0.0"], ["10.0.0.0/33"], ["10.0.0.256/24"], ["fd00::/129"], ["x/8"]])("%s is refused", (cidr) => {
    expect(() => parseCidr(cidr)).toThrow(`invalid CIDR address: ${cidr}`);
  });

  it.each([
    ["10.0.0.1", "IPv4", "10.0.0.1"],
    ["fd00:0:0::1", "IPv6", "fd00::1"],
    ["2001:db8:1:2:3:4:5:6", "IPv6", "2001:db8:1:2:3:4:5:6"],
    ["::", "IPv6", "::"],
  ])("address %s", (text, family, formatted) => {
    const ip = parseIP(text);
    expect(ip?.family).toBe(family);
    expect(formatIP(ip?.family ?? "IPv4", ip?.value ?? 0n)).toBe(formatted);
  });
});

describe("node port ranges", () => {
  it.each([
    ["30000-32767", 30000n, 32767n, 30086n],
    ["30000+99", 30000n, 30099n, 30016n],
    ["8080", 8080n, 8080n, 8080n],
  ])("%s", (text, first, last, dynamicFirst) => {
    expect(parsePortRange(text)).toEqual({ first, last, dynamicFirst });
  });

  it.each([["0-10"], ["5-4"], ["30000-70000"], ["a-b"]])("%s is refused", (text) => {
    expect(() => parsePortRange(text)).toThrow("invalid port range");
  });

  it("dynamic candidates try the upper band from the start point, then the rest of it, then the lower band, each value once", () => {
    const r = { first: 1n, last: 10n, dynamicFirst: 5n };
    expect([...candidates(r, 2n)]).toEqual([7n, 8n, 9n, 10n, 5n, 6n, 1n, 2n, 3n, 4n]);
  });
});

describe("update keeps allocated values", () => {
  const old = { spec: { type: "NodePort", clusterIP: "10.0.0.9", clusterIPs: ["10.0.0.9"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack", ports: [{ name: "a", port: 80, nodePort: 30001 }, { name: "b", port: 81, nodePort: 30002 }] } };
  it.each([
    ["left out: all kept", { type: "NodePort", ports: [{ name: "a", port: 80 }, { name: "b", port: 81 }] }, { clusterIP: "10.0.0.9", ipFamilyPolicy: "SingleStack", ports: [{ name: "a", port: 80, nodePort: 30001 }, { name: "b", port: 81, nodePort: 30002 }] }],
    ["a used elsewhere is not copied", { type: "NodePort", ports: [{ name: "a", port: 80 }, { name: "b", port: 81, nodePort: 30001 }] }, { ports: [{ name: "a", port: 80 }, { name: "b", port: 81, nodePort: 30001 }] }],
    ["to ClusterIP drops node ports", { type: "ClusterIP", ports: [{ name: "a", port: 80, nodePort: 30001 }] }, { clusterIP: "10.0.0.9", ports: [{ name: "a", port: 80 }] }],
  ])("%s", (_name, next, expected) => {
    const obj = { spec: structuredClone(next) as Record<string, unknown> };
    keepAllocatedValues(obj, structuredClone(old));
    expect(obj.spec).toMatchObject(expected);
  });

  it("to ExternalName drops the cluster IPs", () => {
    const obj = { spec: { type: "ExternalName", externalName: "x.example", clusterIP: "10.0.0.9" } as Record<string, unknown> };
    keepAllocatedValues(obj, structuredClone(old));
    expect(obj.spec.clusterIP).toBeUndefined();
    expect(obj.spec.clusterIPs).toBeUndefined();
  });
});
