import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "../../endpoints/request-info.ts";
import { estimateSeats } from "./work-estimate.ts";


describe("work estimate by object count (SizeBasedListCostEstimate off)", () => {
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
    { path: "/api/v1/configmaps?watch=1", method: "GET", stored: 5000, seats: 10, why: "a legacy watch without a resource version gets initial events: a list from the cache" },
    { path: "/api/v1/configmaps?watch=1&resourceVersion=0&sendInitialEvents=false", method: "GET", stored: 250, seats: 3, why: "so does one from resource version 0" },
    { path: "/api/v1/configmaps?watch=1&resourceVersion=12", method: "GET", stored: 5000, seats: 1, why: "a watch from a resource version sends no initial events: one seat" },
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
    expect(estimateSeats(info, url.searchParams, () => ({ objects: stored }), maxSeats)).toBe(seats);
  });

  it("takes the minimum when the resource is unknown", () => {
    const url = new URL("/api/v1/configmaps", "https://127.0.0.1");
    expect(estimateSeats(parseRequestInfo("GET", url, url.searchParams), url.searchParams, () => undefined)).toBe(1);
  });
});

describe("work estimate by the memory a list loads (SizeBasedListCostEstimate, release 1.35's default)", () => {
  it.each([
    { path: "/api/v1/configmaps", stored: 50, bytes: 10_000, seats: 5, why: "50 objects of 10 kB from the cache: 500 kB, one seat per 100 kB (by count: 1)" },
    { path: "/api/v1/configmaps", stored: 5000, bytes: 100, seats: 5, why: "5,000 objects of 100 B: 500 kB (by count: 10)" },
    { path: "/api/v1/configmaps", stored: 1000, bytes: 1_300, seats: 10, why: "a list from the cache counts at most 1 MB: 10 seats" },
    { path: "/api/v1/configmaps", stored: 1000, bytes: 1_300, seats: 3, maxSeats: 3, why: "the level's widest request bounds it" },
    { path: "/api/v1/configmaps", stored: 120, bytes: 300, seats: 1, why: "36 kB: one seat (by count: 2)" },
    { path: "/api/v1/configmaps?limit=100", stored: 5000, bytes: 2_000, seats: 2, why: "a cached list with a limit loads the limit: 200 kB (by count: 10)" },
    { path: "/api/v1/configmaps?limit=500&resourceVersion=10", stored: 1000, bytes: 1_000, seats: 5, why: "from storage (legacy exact): the limit, 500 kB (by count: 2 x 500, 10)" },
    { path: "/api/v1/configmaps?limit=100&continue=abc&labelSelector=a%3Db", stored: 1000, bytes: 1_000, seats: 5, why: "from storage with a selector: at least half the stored objects, 500 kB" },
    { path: "/api/v1/configmaps?limit=800&continue=abc&labelSelector=a%3Db", stored: 1000, bytes: 1_000, seats: 8, why: "or the limit when it is more" },
    { path: "/api/v1/configmaps?limit=5&resourceVersionMatch=Exact&resourceVersion=5", stored: 1000, bytes: 0, seats: 75, why: "objects of unknown size count as 1.5 MB each, not capped from storage: 7.5 MB" },
    { path: "/api/v1/configmaps?resourceVersionMatch=Exact&resourceVersion=5", stored: 5000, bytes: 10_000, seats: 100, why: "a list is at most 100 seats by size (10 by count): 50 MB from storage" },
    { path: "/api/v1/configmaps?resourceVersionMatch=Exact&resourceVersion=5", stored: 5000, bytes: 10_000, seats: 20, maxSeats: 20, why: "the level's widest request bounds it" },
    { path: "/api/v1/configmaps?limit=ten", stored: 50, bytes: 1_000, seats: 100, why: "list options that do not parse take the widest list, with no bound from the level" },
    { path: "/api/v1/configmaps", stored: 3, bytes: 0, seats: 10, why: "unknown size from the cache: capped at 1 MB" },
    { path: "/api/v1/configmaps", stored: 0, bytes: 0, seats: 1, why: "no objects: the minimum" },
    { path: "/api/v1/configmaps?fieldSelector=metadata.name%3Dx&resourceVersionMatch=Exact&resourceVersion=5", stored: 1000, bytes: 350_000, seats: 4, why: "one named object from storage loads that object: 350 kB" },
    { path: "/api/v1/configmaps?fieldSelector=metadata.name%3Dx", stored: 1000, bytes: 1_000, seats: 1, why: "one named object of 1 kB" },
    { path: "/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", stored: 450, bytes: 3_000, seats: 10, why: "initial events cost a list from the cache: 1.35 MB capped at 1 MB (by count: 5)" },
    { path: "/api/v1/configmaps?watch=1", stored: 450, bytes: 3_000, seats: 10, why: "a legacy watch without a resource version gets initial events: 1.35 MB capped at 1 MB" },
    { path: "/api/v1/configmaps?watch=1&sendInitialEvents=false&resourceVersion=0", stored: 450, bytes: 1_000, seats: 5, why: "a legacy watch from resource version 0 as well: 450 kB" },
    { path: "/api/v1/configmaps?watch=1&resourceVersion=7", stored: 450, bytes: 3_000, seats: 1, why: "a watch from a resource version sends no initial events: one seat" },
    { path: "/api/v1/namespaces/default/configmaps/x", stored: 450, bytes: 300_000, seats: 1, why: "a get is one seat" },
  ])("GET $path with $stored objects of $bytes B: $seats ($why)", ({ path, stored, bytes, seats, maxSeats }) => {
    const url = new URL(path, "https://127.0.0.1");
    const info = parseRequestInfo("GET", url, url.searchParams);
    expect(estimateSeats(info, url.searchParams, () => ({ objects: stored, averageBytes: bytes }), maxSeats)).toBe(seats);
  });
});
