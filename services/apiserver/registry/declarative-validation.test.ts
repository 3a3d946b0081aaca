/**
 * The comparison of hand-written and declarative errors (a table), and the wrapper's
 * answer per gate over the ReplicationController strategy: gate off leaves the strategy
 * as it is, a mismatch is counted, takeover swaps only the covered errors.
 */
import { describe, expect, it } from "vitest";
import { replicationControllerKind } from "../../../shared/api/groups/core-v1-workloads.ts";
import { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { fieldErrors, formatFieldError } from "../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { declareDeclarativeValidationMetrics, sameErrors, withDeclarativeValidation } from "./declarative-validation.ts";
import { builtinKinds } from "../../../shared/api/groups/index.ts";
import { getProfile } from "../../../shared/platform/index.ts";
import { BUILTIN_DECLARATIONS, declarationKey, LATER_RELEASE_DECLARATIONS, parseDeclarationTable, type DeclarativeDeclarations } from "./declarative-validation-rules.ts";
import { genericStrategy } from "./strategy.ts";

const inv = (field: string, detail = "x"): FieldError => fieldErrors.invalid(field, 1, detail);
const req = (field: string): FieldError => fieldErrors.required(field);

describe("sameErrors", () => {
  it.each<[string, FieldError[], FieldError[], boolean]>([
    ["both empty", [], [], true],
    ["same field and type, other message", [inv("spec.a", "one")], [inv("spec.a", "two")], true],
    ["other order", [inv("spec.a"), req("spec.b")], [req("spec.b"), inv("spec.a")], true],
    ["other type", [inv("spec.a")], [req("spec.a")], false],
    ["other field", [inv("spec.a")], [inv("spec.b")], false],
    ["one side empty", [inv("spec.a")], [], false],
    ["counted as multisets", [inv("spec.a"), inv("spec.a")], [inv("spec.a"), req("spec.a")], false],
  ])("%s", (_name, a, b, expected) => {
    expect(sameErrors(a, b)).toBe(expected);
    expect(sameErrors(b, a)).toBe(expected);
  });
});

function setUp(enabled: boolean, takeover: boolean, table = BUILTIN_DECLARATIONS) {
  const registry = new MetricsRegistry({ currentVersion: "1.35" });
  const metrics = declareDeclarativeValidationMetrics(registry);
  const base = genericStrategy(replicationControllerKind);
  const logged: string[] = [];
  const strategy = withDeclarativeValidation(base, { enabled, takeover, declarations: parseDeclarationTable(table), metrics, log: (_l, msg) => logged.push(msg) });
  const mismatches = async () => (await metrics.mismatch.get()).values[0]?.value ?? 0;
  return { base, strategy, mismatches, logged };
}

const rc = (spec: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "ReplicationController",
  metadata: { name: "a", namespace: "default" },
  spec: { selector: { app: "a" }, template: { metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "c", image: "i" }] } }, ...spec },
});

describe("withDeclarativeValidation", () => {
  it("leaves the strategy alone when the gate is off or the kind has no declarations", () => {
    const off = setUp(false, true);
    expect(off.strategy).toBe(off.base);
    const none = setUp(true, true, {});
    expect(none.strategy).toBe(none.base);
  });

  it.each([
    { takeover: false, replicas: -1, message: "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0" },
    { takeover: true, replicas: -1, message: "spec.replicas: Invalid value: -1: must be greater than or equal to 0" },
  ])("takeover=$takeover answers `$message` and counts no mismatch", async ({ takeover, replicas, message }) => {
    const { strategy, mismatches } = setUp(true, takeover);
    expect(strategy.validate(rc({ replicas })).map(formatFieldError)).toEqual([message]);
    expect(await mismatches()).toBe(0);
  });

  it("counts and logs a mismatch on create and on update", async () => {
    const { strategy, mismatches, logged } = setUp(true, false, { "core/ReplicationController": { "spec.minReadySeconds": ["+k8s:minimum=10"] } });
    expect(strategy.validate(rc({ minReadySeconds: 5 }))).toEqual([]);
    expect(strategy.validateUpdate(rc({ minReadySeconds: 6 }), rc({ minReadySeconds: 5 }))).toEqual([]);
    expect(await mismatches()).toBe(2);
    expect(logged).toEqual(["declarative validation mismatch", "declarative validation mismatch"]);
  });
});

describe("the declared kinds", () => {
  /** The served kinds whose strategy the wrapper changes with `table`. */
  const wrapped = (table: DeclarativeDeclarations): string[] => {
    const opts = { enabled: true, takeover: false, declarations: parseDeclarationTable(table), metrics: declareDeclarativeValidationMetrics(new MetricsRegistry({ currentVersion: "1.35" })) };
    return builtinKinds(getProfile("kubernetes"))
      .filter((def) => {
        const base = genericStrategy(def);
        return withDeclarativeValidation(base, opts) !== base;
      })
      .map((def) => declarationKey(def.group, def.kind))
      .sort();
  };

  it("are release 1.35's by default: ReplicationController (with its Scale) and CertificateSigningRequest", () => {
    expect(wrapped(BUILTIN_DECLARATIONS)).toEqual(["certificates/CertificateSigningRequest", "core/ReplicationController"]);
  });

  it("take the later releases' migrations only when a table adds them", () => {
    expect(wrapped({ ...BUILTIN_DECLARATIONS, ...LATER_RELEASE_DECLARATIONS })).toEqual(
      ["apps/Deployment", "certificates/CertificateSigningRequest", "core/ReplicationController", "rbac/ClusterRoleBinding", "rbac/RoleBinding", "scheduling/PriorityClass"],
    );
  });

  it("validate ReplicationController's Scale: the hand-written error by default, the declarative one under takeover, a deliberate rule counted", async () => {
    const scale = (replicas: number) => ({ apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "a", namespace: "default" }, spec: { replicas } });
    const plain = setUp(true, false).strategy;
    expect(plain.validateScale?.(scale(-1), scale(1)).map(formatFieldError)).toEqual(["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]);
    const takeover = setUp(true, true).strategy;
    expect(takeover.validateScale?.(scale(-1), scale(1)).map(formatFieldError)).toEqual(["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]);
    const deliberate = setUp(true, false, { "autoscaling/Scale": { "spec.replicas": ["+k8s:minimum=2"] } });
    expect(deliberate.strategy.validateScale?.(scale(1), scale(3))).toEqual([]);
    expect(await deliberate.mismatches()).toBe(1);
  });
});
