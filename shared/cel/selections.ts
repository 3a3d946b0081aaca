/**
 * Field selections of an expression, for checks against a schema: every
 * `.field` (or `.?field`) select whose operand is a chain of selects rooted at
 * one of the given variables (`object.spec.replicas` gives `spec` and
 * `spec.replicas` rooted at `object`), with the source offset of its dot.
 * Index operations end a chain; selects inside macros are included. An
 * expression that does not parse has none (compilation reports it). Pure.
 */
import { Environment, type ASTNode } from "@marcbachmann/cel-js";
import { astNodes } from "./ast-walk.ts";

export interface FieldSelection {
  root: string;
  /** Field names from the root, the selected field last. */
  path: string[];
  /** Source offset of the `.` before the selected field. */
  offset: number;
}

const parser = new Environment({ enableOptionalTypes: true, unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });

/** The root and field names of a pure select chain, or undefined. */
function chain(node: ASTNode, roots: ReadonlySet<string>): { root: string; path: string[] } | undefined {
  if (node.op === "id") return typeof node.args === "string" && roots.has(node.args) ? { root: node.args, path: [] } : undefined;
  if (node.op === "." || node.op === ".?") {
    const [operand, field] = node.args as [ASTNode, string];
    const inner = chain(operand, roots);
    return inner && { root: inner.root, path: [...inner.path, field] };
  }
  return undefined;
}

/** Every select rooted at one of `roots`. */
export function fieldSelections(source: string, roots: readonly string[]): FieldSelection[] {
  let root: ASTNode;
  try {
    root = parser.parse(source).ast;
  } catch {
    return [];
  }
  const names = new Set(roots);
  const out: FieldSelection[] = [];
  for (const node of astNodes(root)) {
    if (node.op === "." || node.op === ".?") {
      const c = chain(node, names);
      if (c) {
        const field = c.path[c.path.length - 1];
        out.push({ ...c, offset: node.end - field.length - (node.op === ".?" ? 2 : 1) });
      }
    }
  }
  return out.sort((a, b) => a.offset - b.offset);
}
