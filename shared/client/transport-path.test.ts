/**
 * Which request paths the transport sends as they are, without resolving them against
 * the base URL: the ones URL resolution would leave unchanged. Every path the object
 * client builds (resource paths with encoded queries) is one; a path URL resolution
 * would escape or rewrite (spaces, quotes, '#', backslashes, dot segments, relative or
 * absolute URLs) still goes through it.
 */
import { describe, expect, it } from "vitest";
import { resourcePath } from "./object-client.ts";
import { plainPath } from "./transport.ts";

const BASE = new URL("https://127.0.0.1:6443/some/prefix");

function resolved(path: string): string {
  const u = new URL(path, BASE);
  return u.pathname + u.search;
}

const CM = { group: "", version: "v1", resource: "configmaps" };
const DEPLOY = { group: "apps", version: "v1", resource: "deployments" };

describe("plain request paths", () => {
  const clientPaths = [
    resourcePath(CM, "default", "cm-1"),
    resourcePath(DEPLOY, "team-a", "web", "status"),
    resourcePath(CM, "default") + "?" + new URLSearchParams({ labelSelector: "app in (a,b),tier!=x", fieldSelector: "metadata.name=x", limit: "500", continue: "eyJ2IjoxfQ==" }).toString(),
    resourcePath({ group: "rbac.authorization.example.com", version: "v1", resource: "clusterroles" }, undefined, "system:controller:gc"),
    "/apis/example.com/v1/namespaces/ns/widgets/w?watch=1&resourceVersion=12&allowWatchBookmarks=true&timeoutSeconds=300",
    "/readyz",
    "/api/v1/namespaces/ns/configmaps/a%20b",
  ];

  it.each(clientPaths)("sends %s as it is, as URL resolution would", (path) => {
    expect(plainPath(path)).toBe(true);
    expect(resolved(path)).toBe(path);
  });

  it.each(["/api/v1/namespaces/a b", '/api/v1/x"y', "/api/v1/x#frag", "/api/v1\\x", "/api/v1/namespaces/../x", "/api/./v1", "/a/b/..", "relative/path", "https://other.example.com/api", "/api/v1/x'y", "/x/{y}", "/x|y"])("resolves %s against the base first", (path) => {
    expect(plainPath(path)).toBe(false);
  });

  it("treats as plain only paths whose resolution is themselves", () => {
    const chars = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
    for (const c of chars) {
      const path = `/api/v1/x${c}y?q=${c}`;
      if (plainPath(path)) expect(resolved(path)).toBe(path);
    }
  });
});
