/**
 * Type checking of a ValidatingAdmissionPolicy against the schemas of the kinds
 * it matches, as the platform reports it in `status.typeChecking`: every
 * validation's expression and messageExpression is checked once per matched
 * kind (at most 10, from resourceRules without wildcards, sorted by group,
 * version and kind); a field selected on `object`, `oldObject` (the kind's
 * schema) or `params` (the paramKind's schema) that the schema does not
 * declare gives an expression warning
 *
 *   `<group>/<version>, Kind=<kind>: ERROR: <input>:<line>:<col>: undefined field '<name>'`
 *
 * followed by the source line and a caret, as the platform's CEL checker prints
 * issues. Maps (additionalProperties), nodes that keep unknown fields and
 * untyped nodes accept any field. Type checking never changes enforcement. Pure.
 */
import { fieldSelections, type FieldSelection } from "../../../../shared/cel/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";

/** The parts of a schema node the check reads (the typed schema or a CRD's OpenAPI schema). */
export interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  /** True when unknown fields are kept below this node. */
  preserveUnknownFields?: boolean;
  intOrString?: boolean;
}

export interface CheckedKind {
  group: string;
  version: string;
  kind: string;
  schema: SchemaNode;
}

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** The rules' group/version/resource triples to check, sorted, wildcards and subresources skipped. */
export function resourcesToCheck(spec: JsonObject): Array<{ group: string; version: string; resource: string }> {
  const constraints = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const rules = Array.isArray(constraints.resourceRules) ? constraints.resourceRules.filter(isObject) : [];
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);
  const out: Array<{ group: string; version: string; resource: string }> = [];
  for (const rule of rules) {
    const groups = strings(rule.apiGroups);
    const versions = strings(rule.apiVersions);
    if (groups.some((g) => g.includes("*")) || versions.some((v) => v.includes("*"))) continue;
    const resources = strings(rule.resources).filter((r) => !/[*/]/.test(r));
    for (const group of [...groups].sort()) for (const version of [...versions].sort()) for (const resource of [...resources].sort()) out.push({ group, version, resource });
  }
  return out;
}

const MAX_TYPES = 10;

/** A field's schema below `node`; "any" when the node accepts every field; undefined when the field is not declared. */
function fieldOf(node: SchemaNode, field: string): SchemaNode | "any" | undefined {
  if (node.preserveUnknownFields || node.intOrString) return "any";
  const props = node.properties;
  if (props && Object.prototype.hasOwnProperty.call(props, field)) return props[field];
  const extra = node.additionalProperties;
  if (typeof extra === "object") return extra;
  if (extra === true) return "any";
  if (node.type !== "object" && !props) return "any";
  return undefined;
}

/** The first undeclared field of a selection, if any. */
function undeclared(schema: SchemaNode, sel: FieldSelection): boolean {
  let node: SchemaNode = schema;
  for (let i = 0; i < sel.path.length; i++) {
    const next = fieldOf(node, sel.path[i]);
    if (next === "any") return false;
    if (next === undefined) return i === sel.path.length - 1;
    node = next;
  }
  return false;
}

function lineAndColumn(source: string, offset: number): { line: number; column: number; text: string } {
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  const lineEnd = source.indexOf("\n", offset);
  return { line, column: offset - lineStart, text: source.slice(lineStart, lineEnd < 0 ? source.length : lineEnd) };
}

/** The platform's checker text of one issue. */
function issue(source: string, offset: number, message: string): string {
  const { line, column, text } = lineAndColumn(source, offset);
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${".".repeat(column)}^`;
}

/** The issues of one expression against one kind (and the params schema); "" when none. */
function checkExpression(source: string, kind: SchemaNode, params: SchemaNode | undefined): string {
  const issues: string[] = [];
  for (const sel of fieldSelections(source, params ? ["object", "oldObject", "params"] : ["object", "oldObject"])) {
    const schema = sel.root === "params" ? (params as SchemaNode) : kind;
    if (undeclared(schema, sel)) issues.push(issue(source, sel.offset, `undefined field '${sel.path[sel.path.length - 1]}'`));
  }
  return issues.join("\n");
}

const gvkText = (k: CheckedKind): string => `${k.group}/${k.version}, Kind=${k.kind}`;

/** The expression warnings of a policy spec against the matched kinds (first 10) and the params kind's schema. */
export function typeCheck(spec: JsonObject, kinds: readonly CheckedKind[], params?: SchemaNode): ExpressionWarning[] {
  const sorted = [...kinds]
    .slice(0, MAX_TYPES)
    .sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  if (sorted.length === 0) return [];
  const warnings: ExpressionWarning[] = [];
  const validations = Array.isArray(spec.validations) ? spec.validations.filter(isObject) : [];
  const check = (fieldRef: string, source: unknown): void => {
    if (typeof source !== "string" || source.trim() === "") return;
    const results = sorted.map((k) => ({ k, text: checkExpression(source, k.schema, params) })).filter((r) => r.text !== "");
    if (results.length > 0) warnings.push({ fieldRef, warning: results.map((r) => `${gvkText(r.k)}: ${r.text}\n`).join("\n") });
  };
  validations.forEach((v, i) => {
    check(`spec.validations[${i}].expression`, v.expression);
    check(`spec.validations[${i}].messageExpression`, v.messageExpression);
  });
  return warnings;
}
