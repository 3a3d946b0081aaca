/**
 * The dependency graph and the attempt-to-delete verdict as tables: each case feeds a
 * sequence of observed and forgotten objects, then checks which uids were handed out
 * as work and what the graph decides for one uid.
 */
import { describe, expect, it } from "vitest";
import type { OwnerReference } from "../../../shared/client/object-client.ts";
import { DependencyGraph, verdict, type Decision, type ObservedObject, type OwnerState } from "./graph.ts";

const CM = { group: "", version: "v1", resource: "configmaps" };

function ref(uid: string, block = false): OwnerReference {
  return { apiVersion: "v1", kind: "ConfigMap", name: uid, uid, blockOwnerDeletion: block };
}

function obj(uid: string, opts: { owners?: OwnerReference[]; deleting?: boolean; finalizers?: string[] } = {}): ObservedObject {
  return { uid, resource: CM, namespace: "ns", name: uid, owners: opts.owners ?? [], deleting: opts.deleting ?? false, finalizers: opts.finalizers ?? [] };
}

type Step = { observe: ObservedObject } | { forget: string };

interface Case {
  name: string;
  steps: Step[];
  /** Work handed out by the last step. */
  work: string[];
  decide: string;
  expect: Decision["action"];
  check?: (d: Decision) => void;
}

const cases: Case[] = [
  { name: "an owner alone needs nothing", steps: [{ observe: obj("o") }], work: [], decide: "o", expect: "none" },
  {
    name: "a new dependent of an unseen owner is checked, its owner unknown",
    steps: [{ observe: obj("d", { owners: [ref("o")] }) }],
    work: ["d"],
    decide: "d",
    expect: "attemptDelete",
    check: (d) => d.action === "attemptDelete" && expect(d.owners.map((o) => o.state)).toEqual(["unknown"]),
  },
  {
    name: "a dependent of a live owner: the owner is solid",
    steps: [{ observe: obj("o") }, { observe: obj("d", { owners: [ref("o")] }) }],
    work: ["d"],
    decide: "d",
    expect: "attemptDelete",
    check: (d) => d.action === "attemptDelete" && expect(d.owners.map((o) => o.state)).toEqual(["solid"]),
  },
  {
    name: "an unchanged dependent is not handed out again",
    steps: [{ observe: obj("o") }, { observe: obj("d", { owners: [ref("o")] }) }, { observe: obj("d", { owners: [ref("o")] }) }],
    work: [],
    decide: "d",
    expect: "attemptDelete",
  },
  {
    name: "a deleted owner hands out its dependents, and is known absent",
    steps: [{ observe: obj("o") }, { observe: obj("d1", { owners: [ref("o")] }) }, { observe: obj("d2", { owners: [ref("o")] }) }, { forget: "o" }],
    work: ["d1", "d2"],
    decide: "d1",
    expect: "attemptDelete",
    check: (d) => d.action === "attemptDelete" && expect(d.owners.map((o) => o.state)).toEqual(["absent"]),
  },
  {
    name: "an owner terminating with the orphan finalizer: orphan its dependents",
    steps: [{ observe: obj("o") }, { observe: obj("d", { owners: [ref("o")] }) }, { observe: obj("o", { deleting: true, finalizers: ["orphan"] }) }],
    work: ["o", "d"],
    decide: "o",
    expect: "orphan",
    check: (d) => d.action === "orphan" && expect(d.dependents.map((x) => x.uid)).toEqual(["d"]),
  },
  {
    name: "foreground with a blocking dependent: delete it, keep the finalizer",
    steps: [{ observe: obj("o") }, { observe: obj("d", { owners: [ref("o", true)] }) }, { observe: obj("o", { deleting: true, finalizers: ["foregroundDeletion"] }) }],
    work: ["o", "d"],
    decide: "o",
    expect: "foreground",
    check: (d) => d.action === "foreground" && expect([d.dependents, d.finalize]).toEqual([["d"], false]),
  },
  {
    name: "foreground with only non-blocking dependents: the finalizer can go",
    steps: [{ observe: obj("o") }, { observe: obj("d", { owners: [ref("o", false)] }) }, { observe: obj("o", { deleting: true, finalizers: ["foregroundDeletion"] }) }],
    work: ["o", "d"],
    decide: "o",
    expect: "foreground",
    check: (d) => d.action === "foreground" && expect(d.finalize).toBe(true),
  },
  {
    name: "a foreground owner's dependent sees it waiting",
    steps: [{ observe: obj("o", { deleting: true, finalizers: ["foregroundDeletion"] }) }, { observe: obj("d", { owners: [ref("o", true)] }) }],
    work: ["d"],
    decide: "d",
    expect: "attemptDelete",
    check: (d) => d.action === "attemptDelete" && expect(d.owners.map((o) => o.state)).toEqual(["waiting"]),
  },
  {
    name: "the last blocking dependent's deletion hands out the waiting owner, which may finish",
    steps: [
      { observe: obj("o", { deleting: true, finalizers: ["foregroundDeletion"] }) },
      { observe: obj("d", { owners: [ref("o", true)] }) },
      { observe: obj("d", { owners: [ref("o", true)], deleting: true }) },
      { forget: "d" },
    ],
    work: ["o"],
    decide: "o",
    expect: "foreground",
    check: (d) => d.action === "foreground" && expect([d.dependents, d.finalize]).toEqual([[], true]),
  },
  {
    name: "a blocking dependent that starts a foreground deletion hands out itself and the waiting owner (still blocked)",
    steps: [
      { observe: obj("o", { deleting: true, finalizers: ["foregroundDeletion"] }) },
      { observe: obj("d", { owners: [ref("o", true)] }) },
      { observe: obj("d", { owners: [ref("o", true)], deleting: true, finalizers: ["foregroundDeletion"] }) },
    ],
    work: ["o", "d"],
    decide: "o",
    expect: "foreground",
    check: (d) => d.action === "foreground" && expect([d.dependents, d.finalize]).toEqual([[], false]),
  },
  {
    name: "a dependent that drops its reference frees a waiting owner",
    steps: [
      { observe: obj("o", { deleting: true, finalizers: ["foregroundDeletion"] }) },
      { observe: obj("d", { owners: [ref("o", true)] }) },
      { observe: obj("d") },
    ],
    work: ["o"],
    decide: "o",
    expect: "foreground",
    check: (d) => d.action === "foreground" && expect(d.finalize).toBe(true),
  },
  {
    name: "a terminating object without garbage collector finalizers is left to the server",
    steps: [{ observe: obj("o", { deleting: true, finalizers: ["example.com/x"] }) }],
    work: [],
    decide: "o",
    expect: "none",
  },
  {
    name: "a forgotten object decides nothing",
    steps: [{ observe: obj("d", { owners: [ref("o")] }) }, { forget: "d" }],
    work: [],
    decide: "d",
    expect: "none",
  },
  {
    name: "a dependent seen again after a relist is no longer absent",
    steps: [{ observe: obj("o") }, { forget: "o" }, { observe: obj("o") }, { observe: obj("d", { owners: [ref("o")] }) }],
    work: ["d"],
    decide: "d",
    expect: "attemptDelete",
    check: (d) => d.action === "attemptDelete" && expect(d.owners.map((o) => o.state)).toEqual(["solid"]),
  },
];

describe("dependency graph", () => {
  for (const c of cases) {
    it(c.name, () => {
      const g = new DependencyGraph();
      let work: string[] = [];
      for (const s of c.steps) work = "observe" in s ? g.observe(s.observe) : g.forget(s.forget);
      expect(work.sort()).toEqual([...c.work].sort());
      const d = g.decide(c.decide);
      expect(d.action).toBe(c.expect);
      c.check?.(d);
    });
  }

  it("keeps edges in step with changed references", () => {
    const g = new DependencyGraph();
    g.observe(obj("d", { owners: [ref("a"), ref("b")] }));
    expect(g.dependentsOf("a")).toEqual(["d"]);
    g.observe(obj("d", { owners: [ref("b")] }));
    expect(g.dependentsOf("a")).toEqual([]);
    expect(g.dependentsOf("b")).toEqual(["d"]);
    g.forget("d");
    expect(g.dependentsOf("b")).toEqual([]);
  });

  it("forgets the oldest absent uids beyond its capacity", () => {
    const g = new DependencyGraph(2);
    for (const u of ["x", "y", "z"]) g.forget(u);
    g.observe(obj("d", { owners: [ref("x"), ref("z")] }));
    const d = g.decide("d");
    expect(d.action === "attemptDelete" && d.owners.map((o) => o.state)).toEqual(["unknown", "absent"]);
  });
});

const owners = (...states: Array<[string, OwnerState]>) => states.map(([uid, state]) => ({ ref: ref(uid), state }));

describe("attempt-to-delete verdict", () => {
  const table: Array<[string, ObservedObject, ReturnType<typeof owners>, boolean, ReturnType<typeof verdict>]> = [
    ["all owners live: keep", obj("d"), owners(["a", "solid"]), false, { verdict: "keep" }],
    ["an owner that could not be looked up counts as live", obj("d"), owners(["a", "unknown"]), false, { verdict: "keep" }],
    ["a live owner and an absent one: drop the absent reference", obj("d"), owners(["a", "solid"], ["b", "absent"]), false, { verdict: "dropOwners", uids: ["b"] }],
    ["a live owner and a waiting one: drop the waiting reference", obj("d"), owners(["a", "solid"], ["b", "waiting"]), false, { verdict: "dropOwners", uids: ["b"] }],
    ["every owner absent: background delete", obj("d"), owners(["a", "absent"]), false, { verdict: "delete", policy: "Background" }],
    ["waiting owner, no dependents of its own: background delete", obj("d"), owners(["a", "waiting"]), false, { verdict: "delete", policy: "Background" }],
    ["waiting owner and dependents of its own: foreground delete", obj("d"), owners(["a", "waiting"]), true, { verdict: "delete", policy: "Foreground" }],
    ["absent owners, orphan finalizer on the item: orphan delete", obj("d", { finalizers: ["orphan"] }), owners(["a", "absent"]), true, { verdict: "delete", policy: "Orphan" }],
    ["absent owners, foreground finalizer on the item: foreground delete", obj("d", { finalizers: ["foregroundDeletion"] }), owners(["a", "absent"]), false, { verdict: "delete", policy: "Foreground" }],
    ["already terminating: keep", obj("d", { deleting: true }), owners(["a", "absent"]), false, { verdict: "keep" }],
    ["no owners: keep", obj("d"), [], false, { verdict: "keep" }],
  ];
  for (const [name, item, o, hasDeps, want] of table) {
    it(name, () => expect(verdict(item, o, hasDeps)).toEqual(want));
  }
});
