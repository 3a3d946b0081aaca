/**
 * The kinds validated declaratively, with their field tags as the platform's release
 * 1.35 declares them on the versioned types (`+k8s:` comments of types.go). Keys are
 * `<group>/<Kind>` with `core` for the core group; the hand-written side of the same
 * rules stays in the kind's schema and `validateKind`.
 */
import { parseDeclarations, type DeclarativeFieldRule } from "../../../shared/schema/declarative.ts";

/** Tag declarations per kind: field path → tags. */
export type DeclarativeDeclarations = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;

export const BUILTIN_DECLARATIONS: DeclarativeDeclarations = {
  "core/ReplicationController": {
    "spec.replicas": ["+k8s:optional", "+k8s:minimum=0"],
    "spec.minReadySeconds": ["+k8s:optional", "+k8s:minimum=0"],
  },
};

/** The key of a kind in a declarations table. */
export function declarationKey(group: string, kind: string): string {
  return `${group || "core"}/${kind}`;
}

/** Parses every kind's declarations once (a bad tag throws at start-up). */
export function parseDeclarationTable(table: DeclarativeDeclarations): ReadonlyMap<string, DeclarativeFieldRule[]> {
  return new Map(Object.entries(table).map(([key, fields]) => [key, parseDeclarations(fields)]));
}
