/**
 * Walks a parsed cel-js expression: every AST node below a root, operands
 * included wherever they sit (arrays of arguments, map and list entries,
 * macro arguments); literals and identifiers are leaves. Also the declared
 * variables an expression names, so an evaluation only prepares those. Pure.
 */
import type { ASTNode } from "@marcbachmann/cel-js";

export const isAstNode = (v: unknown): v is ASTNode => typeof v === "object" && v !== null && "op" in v && "args" in v;

function pushChildren(v: unknown, out: ASTNode[]): void {
  if (isAstNode(v)) out.push(v);
  else if (Array.isArray(v)) for (const x of v) pushChildren(x, out);
}

/** Every node of the tree under `root` (root first; order otherwise unspecified). */
export function* astNodes(root: ASTNode): Generator<ASTNode> {
  const stack: ASTNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as ASTNode;
    yield node;
    if (node.op !== "value" && node.op !== "id") pushChildren(node.args, stack);
  }
}

/**
 * The names among `declared` that the expression reads. A comprehension
 * variable that shadows a declared name counts as a read (never fewer names
 * than the evaluation needs).
 */
export function referencedVariables(root: ASTNode, declared: readonly string[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const node of astNodes(root)) {
    if (node.op === "id" && typeof node.args === "string" && declared.includes(node.args)) names.add(node.args);
  }
  return names;
}
