/**
 * Shared types of label and field selectors (see `selectors.ts`).
 */

/** Operators as written in selector strings (`gt`/`lt` are the `>`/`<` forms). */
export type SelectorOperator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

/** One parsed requirement; every requirement of a selector must hold (AND). */
export interface Requirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

/** Operators of `matchExpressions` and of review objects' selector requirements. */
export type SelectorRequirementOperator = "In" | "NotIn" | "Exists" | "DoesNotExist";

/** `LabelSelectorRequirement` / `FieldSelectorRequirement` as sent to authorizers. */
export interface SelectorRequirement {
  key: string;
  operator: SelectorRequirementOperator;
  values?: string[];
}

/** The `LabelSelector` object (`spec.selector` of workloads and friends). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** A selector string or object that cannot be parsed; the message is the platform's. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorError";
  }
}
