import { describe, expect, it } from "vitest";
import { isSubpath, requestAttributes } from "./request-attributes.ts";

describe("requestAttributes", () => {
  it.each<[string, string, boolean, string, string[]]>([
    ["POST", "/checkpoint/ns/pod/c", true, "create", ["checkpoint"]],
    ["GET", "/healthz", true, "get", ["healthz", "proxy"]],
    ["GET", "/healthz", false, "get", ["proxy"]],
    ["GET", "/pods", true, "get", ["pods", "proxy"]],
    ["GET", "/runningpods/", true, "get", ["pods", "proxy"]],
    ["GET", "/configz", true, "get", ["configz", "proxy"]],
    ["GET", "/stats/summary", true, "get", ["stats"]],
    ["GET", "/metrics/cadvisor", true, "get", ["metrics"]],
    ["GET", "/logs/syslog", true, "get", ["log"]],
    ["POST", "/exec/ns/pod/c", true, "create", ["proxy"]],
    ["PUT", "/anything", true, "update", ["proxy"]],
    ["PATCH", "/x", true, "patch", ["proxy"]],
    ["DELETE", "/x", true, "delete", ["proxy"]],
    ["GET", "/podsX", true, "get", ["proxy"]],
  ])("%s %s (fine-grained %s) → verb %s, subresources %j", (method, path, fine, verb, subs) => {
    const attrs = requestAttributes(method, path, "n1", fine);
    expect(attrs.map((a) => a.subresource)).toEqual(subs);
    for (const a of attrs) expect(a).toMatchObject({ verb, resource: "nodes", name: "n1", apiVersion: "v1", path });
  });

  it.each([
    ["/pods", "/pods", true],
    ["/pods/x", "/pods", true],
    ["/podsx", "/pods", false],
    ["/runningpods/", "/runningpods/", true],
  ])("isSubpath(%s, %s) = %s", (path, prefix, want) => {
    expect(isSubpath(path, prefix)).toBe(want);
  });
});
