/**
 * Declarative validation beside a strategy's hand-written validation, as the platform's
 * `DeclarativeValidation` and `DeclarativeValidationTakeover` gates run it.
 *
 * Contract:
 * - For a kind with declarations, every validate/validateUpdate runs both. The
 *   hand-written errors the declarations cover (on a declared field, of a type its
 *   tags report: `coveredErrors`) are compared with the
 *   declarative errors by (field path, error type), as multisets; a difference is logged
 *   (`declarative validation mismatch`, with both lists) and counted in
 *   `apiserver_validation_declarative_validation_mismatch_total`.
 * - Without takeover the client gets the hand-written errors. With takeover it gets the
 *   uncovered hand-written errors plus the declarative errors.
 * - A throw inside declarative evaluation is counted in
 *   `apiserver_validation_declarative_validation_panic_total`, logged, and the
 *   hand-written result is returned (with or without takeover).
 * - The scale subresource of the kinds in `SCALE_DECLARATIVE_KINDS` validates the
 *   written Scale the same way: the Scale's declarations (`SCALE_DECLARATIONS_KEY`)
 *   beside the hand-written `validateScaleSpec` (`validateScale` of the strategy).
 * - Kinds without declarations, or the gate off, get the strategy unchanged.
 */
import type { Counter } from "prom-client";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { coveredErrors, evaluateDeclarative, type DeclarativeFieldRule } from "../../../shared/schema/declarative.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import type { JsonObject } from "../storage/object.ts";
import { declarationKey, SCALE_DECLARATIONS_KEY, SCALE_DECLARATIVE_KINDS } from "./declarative-validation-rules.ts";
import { validateScaleSpec } from "./scale-validation.ts";
import type { Strategy } from "./strategy.ts";

export interface DeclarativeValidationMetrics {
  mismatch: Counter<string>;
  panic: Counter<string>;
}

export function declareDeclarativeValidationMetrics(registry: MetricsRegistry): DeclarativeValidationMetrics {
  return {
    mismatch: registry.counter({
      name: "apiserver_validation_declarative_validation_mismatch_total",
      help: "Number of times the declarative validation result differed from the hand-written validation result.",
      stabilityLevel: "BETA",
    }),
    panic: registry.counter({
      name: "apiserver_validation_declarative_validation_panic_total",
      help: "Number of times declarative validation failed with an internal error.",
      stabilityLevel: "BETA",
    }),
  };
}

export interface DeclarativeValidationOptions {
  /** `DeclarativeValidation`. */
  enabled: boolean;
  /** `DeclarativeValidationTakeover`. */
  takeover: boolean;
  /** Parsed declarations per `<group>/<Kind>`. */
  declarations: ReadonlyMap<string, DeclarativeFieldRule[]>;
  metrics: DeclarativeValidationMetrics;
  log?: LogFn;
}

type Signature = (e: FieldError) => string;
const signature: Signature = (e) => `${e.field}\u0000${e.type}`;

/** True when both lists hold the same (field, type) pairs the same number of times. Pure. */
export function sameErrors(a: readonly FieldError[], b: readonly FieldError[]): boolean {
  if (a.length !== b.length) return false;
  const counts = new Map<string, number>();
  for (const e of a) counts.set(signature(e), (counts.get(signature(e)) ?? 0) + 1);
  for (const e of b) {
    const n = counts.get(signature(e)) ?? 0;
    if (n === 0) return false;
    counts.set(signature(e), n - 1);
  }
  return true;
}

/** The strategy with declarative validation run beside its own, per the gates. */
export function withDeclarativeValidation(base: Strategy, opts: DeclarativeValidationOptions): Strategy {
  const key = declarationKey(base.def.group, base.def.kind);
  const rules = opts.declarations.get(key);
  const scaleRules = SCALE_DECLARATIVE_KINDS.includes(key) && base.def.scale ? opts.declarations.get(SCALE_DECLARATIONS_KEY) : undefined;
  if (!opts.enabled || (!rules?.length && !scaleRules?.length)) return base;
  const kind = base.def.kind;

  /** Runs `declared` beside the hand-written errors, compares, counts and picks per takeover. */
  const checker = (declared: DeclarativeFieldRule[], subresource?: string) => {
    const covered = coveredErrors(declared);
    return (handWritten: FieldError[], obj: JsonObject, old?: JsonObject): FieldError[] => {
      let declarative: FieldError[];
      try {
        declarative = evaluateDeclarative(declared, obj, old);
      } catch (err) {
        opts.metrics.panic.inc();
        opts.log?.("error", "declarative validation failed", { kind, subresource, error: String(err) });
        return handWritten;
      }
      const handCovered = handWritten.filter(covered);
      if (!sameErrors(handCovered, declarative)) {
        opts.metrics.mismatch.inc();
        opts.log?.("warn", "declarative validation mismatch", {
          kind,
          subresource,
          operation: old === undefined ? "create" : "update",
          handwritten: handCovered.map((e) => `${e.field}: ${e.type}`),
          declarative: declarative.map((e) => `${e.field}: ${e.type}`),
        });
      }
      return opts.takeover ? [...handWritten.filter((e) => !covered(e)), ...declarative] : handWritten;
    };
  };

  const strategy: Strategy = { ...base };
  if (rules?.length) {
    const decide = checker(rules);
    strategy.validate = (obj) => decide(base.validate(obj), obj);
    strategy.validateUpdate = (obj, old) => decide(base.validateUpdate(obj, old), obj, old);
  }
  if (scaleRules?.length) {
    const decideScale = checker(scaleRules, "scale");
    const handWritten = base.validateScale?.bind(base) ?? ((scale: JsonObject) => validateScaleSpec(scale));
    strategy.validateScale = (scale, oldScale) => decideScale(handWritten(scale, oldScale), scale, oldScale);
  }
  return strategy;
}
