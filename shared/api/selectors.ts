/**
 * Label and field selectors: parsing of the query-string syntax with the
 * platform's error messages, matching, conversion to and from the
 * `LabelSelector` object, and the `requirements` form that authorizers and
 * review objects use (`{ key, operator: In|NotIn|Exists|DoesNotExist, values }`).
 *
 * Pure: no I/O, no clocks. Label selectors live in `label-selector.ts`, field
 * selectors in `field-selector.ts`; this module is the one import point.
 */

export type { SelectorOperator, Requirement, SelectorRequirementOperator, SelectorRequirement, LabelSelector } from "./selector-types.ts";
export { SelectorError } from "./selector-types.ts";
export {
  ParsedLabelSelector,
  parseLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  newLabelRequirement,
  matchesLabels,
} from "./label-selector.ts";
export { FieldSelector, parseFieldSelector, escapeFieldValue, unescapeFieldValue, fieldSelectorFromSet } from "./field-selector.ts";
