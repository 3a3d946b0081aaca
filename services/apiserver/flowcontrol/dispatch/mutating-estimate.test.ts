import { describe, expect, it } from "vitest";
import { estimateMutatingWork, type WorkEstimate } from "./mutating-estimate.ts";
import { WatchTracker } from "./watch-tracker.ts";

describe("mutating work estimate", () => {
  const cm = { resource: "configmaps", subresource: "" };
  it.each<[string, number, number, { resource: string; subresource: string }, WorkEstimate]>([
    ["no watches: one seat, nothing after", 0, 10, cm, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }],
    ["fewer watches than one seat's worth: nothing after", 9, 10, cm, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }],
    ["10 watches: one final seat for 5 ms", 10, 10, cm, { initialSeats: 1, finalSeats: 1, additionalLatencyMs: 5 }],
    ["25 watches: 3 final seats for 5 ms", 25, 10, cm, { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 }],
    ["250 watches: 25 seats x 5 ms reshaped to 10 seats x 12.5 ms", 250, 10, cm, { initialSeats: 1, finalSeats: 10, additionalLatencyMs: 12.5 }],
    ["a level whose widest request is 4 seats: 4 seats x 12.5 ms", 100, 4, cm, { initialSeats: 1, finalSeats: 4, additionalLatencyMs: 12.5 }],
    ["no widest request known (0): the limit of 10", 200, 0, cm, { initialSeats: 1, finalSeats: 10, additionalLatencyMs: 10 }],
    ["a widest request above the limit: 10", 200, 40, cm, { initialSeats: 1, finalSeats: 10, additionalLatencyMs: 10 }],
    ["a service account token request makes no event", 500, 10, { resource: "serviceaccounts", subresource: "token" }, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }],
  ])("%s", (_name, watches, maxSeats, request, want) => {
    expect(estimateMutatingWork(watches, maxSeats, request)).toEqual(want);
  });
});

describe("watch tracker", () => {
  const scope = (namespace: string, name = "", resource = "configmaps", apiGroup = "") => ({ apiGroup, resource, namespace, name });
  const tracker = new WatchTracker();
  const forget = [
    tracker.register(scope("")), // all configmaps
    tracker.register(scope("a")),
    tracker.register(scope("a")),
    tracker.register(scope("a", "x")),
    tracker.register(scope("b")),
    tracker.register(scope("a", "", "secrets")),
    tracker.register(scope("a", "", "configmaps", "example.io")),
  ];
  it.each<[string, string, ReturnType<typeof scope>, number]>([
    ["a write of a/x: the resource's, a's and x's watches", "update", scope("a", "x"), 4],
    ["a create in a: the resource's and a's watches", "create", scope("a"), 3],
    ["a write of a/y: not x's watch", "delete", scope("a", "y"), 3],
    ["a write in b", "patch", scope("b", "z"), 2],
    ["a cluster-wide write: only the resource-wide watches", "deletecollection", scope(""), 1],
    ["another resource", "update", scope("a", "x", "secrets"), 1],
    ["another group", "update", scope("a", "x", "configmaps", "example.io"), 1],
    ["read-only verbs have no interested watches", "get", scope("a", "x"), 0],
    ["list", "list", scope("a"), 0],
  ])("%s", (_name, verb, target, want) => {
    expect(tracker.interestedCount(verb, target)).toBe(want);
  });

  it("forgets each watch once", () => {
    expect(tracker.size).toBe(7);
    forget[1]();
    forget[1]();
    expect(tracker.interestedCount("update", scope("a", "x"))).toBe(3);
    for (const f of forget) f();
    expect(tracker.size).toBe(0);
    expect(tracker.interestedCount("update", scope("a", "x"))).toBe(0);
  });
});
