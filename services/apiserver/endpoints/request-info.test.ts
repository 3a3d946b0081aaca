import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { StatusError } from "../../../shared/api/status.ts";
import { parseRequestInfo, resourceWithSubresource, type RequestInfo } from "./request-info.ts";

const rbac = getProfile("plat").group("rbac");

type Expect = Partial<RequestInfo>;

const resourceCases: Array<[string, string, Expect]> = [
  // method, url, expected
  ["GET", "/api/v1/namespaces", { verb: "list", apiPrefix: "api", apiVersion: "v1", resource: "namespaces", namespace: "", name: "", parts: ["namespaces"] }],
  ["GET", "/api/v1/namespaces/foo", { verb: "get", resource: "namespaces", name: "foo", namespace: "foo", parts: ["namespaces", "foo"] }],
  ["PUT", "/api/v1/namespaces/foo/status", { verb: "update", resource: "namespaces", name: "foo", subresource: "status", namespace: "foo" }],
  ["PUT", "/api/v1/namespaces/foo/finalize", { verb: "update", resource: "namespaces", name: "foo", subresource: "finalize", namespace: "foo" }],
  ["GET", "/api/v1/namespaces/ns/pods", { verb: "list", resource: "pods", namespace: "ns", name: "", parts: ["pods"] }],
  ["GET", "/api/v1/namespaces/ns/pods/name", { verb: "get", resource: "pods", namespace: "ns", name: "name", parts: ["pods", "name"] }],
  [
    "GET",
    "/api/v1/namespaces/ns/pods/name/log",
    { verb: "get", resource: "pods", namespace: "ns", name: "name", subresource: "log", parts: ["pods", "name", "log"] },
  ],
  ["GET", "/api/v1/namespaces/ns/pods/name/proxy/a/b", { verb: "get", resource: "pods", name: "name", subresource: "proxy", parts: ["pods", "name", "proxy", "a", "b"] }],
  ["HEAD", "/api/v1/namespaces/ns/pods/name", { verb: "get", name: "name" }],
  // Leading and trailing slashes are dropped, inner empty segments kept; percent-escapes decoded before splitting.
  ["GET", "///api/v1/namespaces/ns/pods/name//", { verb: "get", resource: "pods", namespace: "ns", name: "name", parts: ["pods", "name"] }],
  ["GET", "/api/v1/namespaces/ns//pods", { verb: "get", resource: "", namespace: "ns", name: "pods", parts: ["", "pods"] }],
  ["GET", "/api/v1/namespaces/ns/pods/a%2Db", { verb: "get", name: "a-b", path: "/api/v1/namespaces/ns/pods/a-b" }],
  ["GET", "/api/v1/namespaces/ns/pods/a%2Fb", { verb: "get", name: "a", subresource: "b", path: "/api/v1/namespaces/ns/pods/a/b" }],
  ["GET", "/api/v1/namespaces/ns/pods/a%zz", { verb: "get", name: "a%zz", path: "/api/v1/namespaces/ns/pods/a%zz" }],
  ["GET", "/api/v1/pods", { verb: "list", resource: "pods", namespace: "" }],
  ["GET", "/api/v1/nodes/n1", { verb: "get", resource: "nodes", name: "n1", namespace: "" }],
  ["POST", "/api/v1/namespaces/ns/pods", { verb: "create", resource: "pods", namespace: "ns" }],
  ["POST", "/api/v1/namespaces/ns/pods/p/eviction", { verb: "create", resource: "pods", name: "p", subresource: "eviction" }],
  ["PUT", "/api/v1/namespaces/ns/pods/p", { verb: "update", name: "p" }],
  ["PATCH", "/api/v1/namespaces/ns/pods/p", { verb: "patch", name: "p" }],
  ["PATCH", "/api/v1/namespaces/ns/pods/p/status", { verb: "patch", name: "p", subresource: "status" }],
  ["DELETE", "/api/v1/namespaces/ns/pods/p", { verb: "delete", name: "p" }],
  ["DELETE", "/api/v1/namespaces/ns/pods", { verb: "deletecollection", resource: "pods", name: "" }],
  ["OPTIONS", "/api/v1/namespaces/ns/pods/p", { verb: "", isResourceRequest: true, name: "p" }],
  ["GET", "/apis/apps/v1/deployments", { verb: "list", apiPrefix: "apis", apiGroup: "apps", apiVersion: "v1", resource: "deployments" }],
  ["GET", "/apis/apps/v1/namespaces/ns/deployments/d/scale", { verb: "get", apiGroup: "apps", resource: "deployments", name: "d", subresource: "scale" }],
  ["POST", `/apis/${rbac}/v1/clusterroles`, { verb: "create", apiGroup: rbac, resource: "clusterroles" }],
  // watch: query flag
  ["GET", "/api/v1/namespaces/ns/pods?watch=true", { verb: "watch", resource: "pods", name: "" }],
  ["GET", "/api/v1/namespaces/ns/pods?watch=1", { verb: "watch" }],
  ["GET", "/api/v1/namespaces/ns/pods?watch=TRUE", { verb: "watch" }],
  ["GET", "/api/v1/namespaces/ns/pods?watch=", { verb: "watch" }],
  ["GET", "/api/v1/namespaces/ns/pods?watch=false", { verb: "list" }],
  ["GET", "/api/v1/namespaces/ns/pods?watch=False", { verb: "list" }],
  ["GET", "/api/v1/namespaces/ns/pods?watch=0", { verb: "list" }],
  ["GET", "/api/v1/namespaces/ns/pods/p?watch=true", { verb: "get", name: "p" }],
  // legacy watch prefix
  ["GET", "/api/v1/watch/pods", { verb: "watch", resource: "pods", namespace: "", parts: ["pods"] }],
  ["GET", "/api/v1/watch/namespaces/ns/pods", { verb: "watch", resource: "pods", namespace: "ns" }],
  ["GET", "/api/v1/watch/namespaces/ns/pods/p", { verb: "watch", resource: "pods", namespace: "ns", name: "p" }],
  ["GET", "/apis/apps/v1/watch/namespaces/ns/deployments", { verb: "watch", apiGroup: "apps", resource: "deployments", namespace: "ns" }],
  ["GET", "/api/v1/watch/namespaces", { verb: "watch", resource: "namespaces" }],
  ["GET", "/api/v1/watch/namespaces/foo", { verb: "watch", resource: "namespaces", name: "foo", namespace: "foo" }],
  // proxy verb: no subresource
  ["GET", "/api/v1/proxy/namespaces/ns/pods/p/extra", { verb: "proxy", resource: "pods", name: "p", subresource: "", parts: ["pods", "p", "extra"] }],
  // fieldSelector on metadata.name names the object of a list or watch
  ["GET", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dx", { verb: "list", name: "x", fieldSelector: "metadata.name=x" }],
  ["GET", "/api/v1/namespaces/ns/pods?watch=1&fieldSelector=metadata.name%3D%3Dx", { verb: "watch", name: "x" }],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dx,status.phase%3DRunning", { verb: "list", name: "x" }],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name!%3Dx", { verb: "list", name: "" }],
  ["GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1", { verb: "list", name: "", fieldSelector: "spec.nodeName=n1" }],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Da%2Fb", { verb: "list", name: "" }],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3D..", { verb: "list", name: "" }],
  ["GET", "/api/v1/pods?fieldSelector=garbage", { verb: "list", name: "" }],
  ["GET", "/api/v1/pods?fieldSelector=metadata.name%3Dx&labelSelector=a%20b", { verb: "list", name: "", labelSelector: "a b" }],
  ["GET", "/api/v1/pods?labelSelector=app%3Dweb", { verb: "list", labelSelector: "app=web" }],
  ["GET", "/api/v1/watch/pods?fieldSelector=metadata.name%3Dx", { verb: "watch", name: "", fieldSelector: "metadata.name=x" }],
  ["DELETE", "/api/v1/namespaces/ns/pods?labelSelector=a%3Db", { verb: "deletecollection", labelSelector: "a=b" }],
  // percent-decoding and extra slashes
  ["GET", "/api/v1/namespaces/ns/configmaps/a%3Ab", { name: "a:b" }],
  ["GET", "//api/v1/pods/", { verb: "list", resource: "pods" }],
];

describe("resource requests", () => {
  it.each(resourceCases)("%s %s", (method, url, expected) => {
    const info = parseRequestInfo(method, url);
    expect(info.isResourceRequest).toBe(true);
    expect(info).toMatchObject(expected);
  });

  it("does not carry selectors on get, create or update", () => {
    const info = parseRequestInfo("GET", "/api/v1/namespaces/ns/pods/p?labelSelector=a%3Db");
    expect(info.labelSelector).toBeUndefined();
    expect(info.fieldSelector).toBeUndefined();
  });

  it("accepts an absolute URL and an explicit query", () => {
    expect(parseRequestInfo("GET", new URL("https://127.0.0.1:6443/api/v1/pods?watch=1")).verb).toBe("watch");
    expect(parseRequestInfo("GET", "/api/v1/pods", new URLSearchParams("watch=true")).verb).toBe("watch");
  });

  it("a special verb without a resource is an internal error", () => {
    expect(() => parseRequestInfo("GET", "/api/v1/watch")).toThrow(StatusError);
    try {
      parseRequestInfo("GET", "/apis/apps/v1/proxy");
    } catch (e) {
      expect((e as StatusError).code).toBe(500);
      expect((e as StatusError).message).toContain("unable to determine kind and namespace from url");
    }
  });
});

const nonResourceCases: Array<[string, string, string]> = [
  ["GET", "/healthz", "get"],
  ["GET", "/readyz/etcd", "get"],
  ["GET", "/version", "get"],
  ["GET", "/", "get"],
  ["GET", "/api", "get"],
  ["GET", "/api/v1", "get"],
  ["GET", "/apis", "get"],
  ["GET", "/apis/apps", "get"],
  ["GET", "/apis/apps/v1", "get"],
  ["POST", "/logs", "post"],
  ["PUT", "/foo/bar/baz/qux", "put"],
  ["DELETE", "/openapi/v2", "delete"],
  ["HEAD", "/livez", "head"],
  ["GET", "/other/v1/pods", "get"],
];

describe("non-resource requests", () => {
  it.each(nonResourceCases)("%s %s", (method, url, verb) => {
    const info = parseRequestInfo(method, url);
    expect(info).toEqual({
      isResourceRequest: false,
      path: url,
      verb,
      apiPrefix: "",
      apiGroup: "",
      apiVersion: "",
      namespace: "",
      resource: "",
      subresource: "",
      name: "",
      parts: [],
    });
  });

  it("custom prefixes", () => {
    expect(parseRequestInfo("GET", "/other/v1/pods", undefined, { apiPrefixes: ["other"], grouplessApiPrefixes: ["other"] })).toMatchObject({
      isResourceRequest: true,
      apiPrefix: "",
      verb: "list",
      resource: "pods",
    });
  });
});

describe("resourceWithSubresource", () => {
  it("joins with a slash", () => {
    expect(resourceWithSubresource(parseRequestInfo("GET", "/api/v1/namespaces/ns/pods/p/log"))).toBe("pods/log");
    expect(resourceWithSubresource(parseRequestInfo("GET", "/api/v1/pods"))).toBe("pods");
  });
});
