import { describe, expect, it } from "vitest";
import { breakdownRule, covers } from "./escalation.ts";
import type { PolicyRule } from "./types.ts";

const R = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
const U = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

const cases: Array<[string, PolicyRule[], PolicyRule[], boolean]> = [
  ["identical", [R(["get"], [""], ["pods"])], [R(["get"], [""], ["pods"])], true],
  ["subset of verbs", [R(["get", "list"], [""], ["pods"])], [R(["get"], [""], ["pods"])], true],
  ["missing verb", [R(["get"], [""], ["pods"])], [R(["get", "delete"], [""], ["pods"])], false],
  ["star verbs", [R(["*"], [""], ["pods"])], [R(["escalate", "bind"], [""], ["pods"])], true],
  ["star group", [R(["get"], ["*"], ["pods"])], [R(["get"], ["apps", ""], ["pods"])], true],
  ["missing group", [R(["get"], [""], ["pods"])], [R(["get"], ["apps"], ["pods"])], false],
  ["star resource", [R(["get"], [""], ["*"])], [R(["get"], [""], ["pods", "pods/log"])], true],
  ["requesting star needs star", [R(["get"], [""], ["pods"])], [R(["get"], [""], ["*"])], false],
  ["*/sub covers x/sub", [R(["get"], [""], ["*/status"])], [R(["get"], [""], ["pods/status"])], true],
  ["*/sub does not cover x", [R(["get"], [""], ["*/status"])], [R(["get"], [""], ["pods"])], false],
  ["split across rules", [R(["get"], [""], ["pods"]), R(["list"], [""], ["pods"])], [R(["get", "list"], [""], ["pods"])], true],
  ["owner unrestricted covers names", [R(["get"], [""], ["cm"])], [R(["get"], [""], ["cm"], ["a", "b"])], true],
  ["owner names cover subset", [R(["get"], [""], ["cm"], ["a", "b"])], [R(["get"], [""], ["cm"], ["a"])], true],
  ["owner names do not cover all", [R(["get"], [""], ["cm"], ["a"])], [R(["get"], [""], ["cm"])], false],
  ["owner names do not cover other", [R(["get"], [""], ["cm"], ["a"])], [R(["get"], [""], ["cm"], ["c"])], false],
  ["url exact", [U(["get"], ["/healthz"])], [U(["get"], ["/healthz"])], true],
  ["url prefix", [U(["get"], ["/healthz/*"])], [U(["get"], ["/healthz/etcd", "/healthz/*"])], true],
  ["url not covered", [U(["get"], ["/healthz"])], [U(["get"], ["/healthz/*"])], false],
  ["url star", [U(["*"], ["*"])], [U(["get", "post"], ["/a", "/b/*"])], true],
  ["resource rules do not cover urls", [R(["*"], ["*"], ["*"])], [U(["get"], ["/x"])], false],
  ["cluster-admin covers all", [R(["*"], ["*"], ["*"]), U(["*"], ["*"])], [R(["escalate"], ["x"], ["y/z"], ["n"]), U(["get"], ["/x"])], true],
  ["nothing owned", [], [R(["get"], [""], ["pods"])], false],
  ["nothing requested", [], [], true],
];

describe("escalation checks", () => {
  it.each(cases)("%s", (_name, owner, requested, want) => {
    expect(covers(owner, requested).covered).toBe(want);
  });

  it("reports the uncovered atomic rules", () => {
    const { uncovered } = covers([R(["get"], [""], ["pods"])], [R(["get", "list"], [""], ["pods", "secrets"])]);
    expect(uncovered).toEqual([R(["list"], [""], ["pods"]), R(["get"], [""], ["secrets"]), R(["list"], [""], ["secrets"])]);
  });

  it("breaks rules into one verb, group, resource and name each", () => {
    expect(breakdownRule(R(["get", "list"], ["", "apps"], ["x"], ["a"]))).toHaveLength(4);
    expect(breakdownRule(U(["get", "post"], ["/a", "/b"]))).toHaveLength(4);
  });
});
