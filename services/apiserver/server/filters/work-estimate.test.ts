import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "../../endpoints/request-info.ts";
import { estimateSeats } from "./work-estimate.ts";


describe("work estimate", () => {
  it.each([
    { path: "/api/v1/namespaces/default/configmaps", method: "GET", stored: 5000, seats: 10, why: "a cached list processes every object (capped at 10)" },
    { path: "/api/v1/configmaps", method: "GET", stored: 250, seats: 3, why: "ceil(250 / 100)" },
    { path: "/api/v1/configmaps", method: "GET", stored: 0, seats: 1, why: "at least one seat" },
    { path: "/api/v1/configmaps?limit=50&resourceVersion=10", method: "GET", stored: 1000, seats: 1, why: "exact (legacy) from storage: 2 × limit" },
    { path: "/api/v1/configmaps?limit=200&resourceVersionMatch=Exact&resourceVersion=5", method: "GET", stored: 1000, seats: 4, why: "2 × 200" },
    { path: "/api/v1/configmaps?limit=200&continue=abc&labelSelector=a%3Db", method: "GET", stored: 1000, seats: 10, why: "selector: stored + limit" },
    { path: "/api/v1/configmaps?limit=100&continue=abc&labelSelector=a%3Db", method: "GET", stored: 300, seats: 4, why: "300 + 100" },
    { path: "/api/v1/configmaps?limit=50", method: "GET", stored: 1000, seats: 10, why: "a limit without a resource version is served from the cache" },
    { path: "/api/v1/namespaces/default/configmaps/x", method: "GET", stored: 5000, seats: 1, why: "a get is one seat" },
    { path: "/api/v1/namespaces/default/configmaps", method: "POST", stored: 5000, seats: 1, why: "a create is one seat" },
    { path: "/version", method: "GET", stored: 5000, seats: 1, why: "non-resource" },
    { path: "/api/v1/configmaps?watch=1", method: "GET", stored: 5000, seats: 1, why: "a watch without initial events is one seat" },
    { path: "/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", method: "GET", stored: 450, seats: 5, why: "initial events cost a list from the cache" },
    { path: "/api/v1/configmaps", method: "GET", stored: 5000, seats: 4, maxSeats: 4, why: "the level's widest request bounds it" },
    { path: "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dx", method: "GET", stored: 5000, seats: 1, why: "a list naming one object processes one" },
    { path: "/api/v1/configmaps?fieldSelector=metadata.name%3Dx&limit=500&resourceVersion=0", method: "GET", stored: 5000, seats: 1, why: "one object, whatever the other options" },
    { path: "/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name%3Dx", method: "GET", stored: 5000, seats: 1, why: "initial events of one object" },
    { path: "/api/v1/configmaps?fieldSelector=metadata.namespace%3Ddefault", method: "GET", stored: 5000, seats: 10, why: "a selector on another field still processes every cached object" },
    { path: "/api/v1/configmaps?limit=ten", method: "GET", stored: 50, seats: 6, maxSeats: 6, why: "list options that do not parse take the widest request" },
    { path: "/api/v1/configmaps?watch=1&limit=1.5", method: "GET", stored: 50, seats: 10, why: "also for a watch" },
  ])("$method $path with $stored objects: $seats ($why)", ({ path, method, stored, seats, maxSeats }) => {
    const url = new URL(path, "https://127.0.0.1");
    const info = parseRequestInfo(method, url, url.searchParams);
    expect(estimateSeats(info, url.searchParams, () => stored, maxSeats)).toBe(seats);
  });

  it("takes the minimum when the count is unknown", () => {
    const url = new URL("/api/v1/configmaps", "https://127.0.0.1");
    expect(estimateSeats(parseRequestInfo("GET", url, url.searchParams), url.searchParams, () => undefined)).toBe(1);
  });
});
