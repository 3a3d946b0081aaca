/**
 * The sets extension of the platform's CEL base environment:
 * `sets.contains(list, list)` (every element of the second is in the first),
 * `sets.equivalent(list, list)` (each contains the other; duplicates and order
 * do not matter) and `sets.intersects(list, list)` (a common element), with
 * CEL equality (1 == 1.0). Pure.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { celEquals } from "./equality.ts";

class SetsNamespace {}

const contains = (a: readonly unknown[], b: readonly unknown[]): boolean => b.every((x) => a.some((y) => celEquals(x, y)));
const intersects = (a: readonly unknown[], b: readonly unknown[]): boolean => a.some((x) => b.some((y) => celEquals(x, y)));

export function registerSets(env: Environment): Environment {
  const N = "kubernetes.SetsNamespace";
  return env
    .registerType(N, SetsNamespace)
    .registerConstant("sets", N, new SetsNamespace())
    .registerFunction(`${N}.contains(list, list): bool`, (_ns: SetsNamespace, a: unknown[], b: unknown[]) => contains(a, b))
    .registerFunction(`${N}.equivalent(list, list): bool`, (_ns: SetsNamespace, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a))
    .registerFunction(`${N}.intersects(list, list): bool`, (_ns: SetsNamespace, a: unknown[], b: unknown[]) => intersects(a, b));
}
