// The bootstrap policy is data split over authz/bootstrap/ (cluster roles, controller roles,
// bindings); its output must stay exactly what the single-file version produced, recorded in
// testing/default-policy.golden.json for both naming profiles.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { componentNames, componentPrefix, defaultClusterRoleBindings, defaultClusterRoles, nodeRules } from "./default-policy.ts";

const golden = JSON.parse(readFileSync(new URL("./testing/default-policy.golden.json", import.meta.url), "utf8")) as Record<string, Record<string, unknown>>;

describe("default policy output", () => {
  for (const id of ["plat", "kubernetes"]) {
    it(`is unchanged for the ${id} profile`, () => {
      const p = getProfile(id);
      const now = { componentPrefix: componentPrefix(p), componentNames: componentNames(p), nodeRules: nodeRules(p), clusterRoles: defaultClusterRoles(p), clusterRoleBindings: defaultClusterRoleBindings(p) };
      // Compared through JSON, as the objects are stored: key order and absent keys count.
      expect(JSON.stringify(now)).toBe(JSON.stringify(golden[id]));
    });
  }
});
