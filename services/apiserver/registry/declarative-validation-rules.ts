/**
 * The kinds validated declaratively, with their field tags as the platform declares them
 * on the versioned types (`+k8s:` comments of types.go). `BUILTIN_DECLARATIONS` is what
 * release 1.35 runs for the kinds this server serves: ReplicationController (1.33), the
 * Scale of its scale subresource (1.34) and the CertificateSigningRequest Approved/Denied
 * union (1.34); the release also covers the dynamic resource allocation group, which this
 * server does not serve. `LATER_RELEASE_DECLARATIONS` holds migrations of later releases,
 * off by default (in 1.35 those kinds are validated by hand only). Keys are
 * `<group>/<Kind>` with `core` for the core group; the hand-written side of the same
 * rules stays in the kind's schema, `validateKind` and strategy.
 */
import { parseDeclarations, type DeclarativeFieldRule } from "../../../shared/schema/declarative.ts";

/** Tag declarations per kind: field path → tags. */
export type DeclarativeDeclarations = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;

/** The declarations of the Scale written through a scale subresource. */
export const SCALE_DECLARATIONS_KEY = "autoscaling/Scale";

/** Kinds whose scale subresource validates the Scale declaratively (ReplicationController's since release 1.34). */
export const SCALE_DECLARATIVE_KINDS: readonly string[] = ["core/ReplicationController"];

export const BUILTIN_DECLARATIONS: DeclarativeDeclarations = {
  "core/ReplicationController": {
    "spec.replicas": ["+k8s:optional", "+k8s:minimum=0"],
    "spec.minReadySeconds": ["+k8s:optional", "+k8s:minimum=0"],
  },
  // Approved and Denied are mutually exclusive (a union of list-map items; the list's
  // map type is the schema's `+listType=map`, for apply, and declares no uniqueness check).
  "certificates/CertificateSigningRequest": {
    "status.conditions": ["+k8s:optional", '+k8s:item(type: "Approved")=+k8s:zeroOrOneOfMember', '+k8s:item(type: "Denied")=+k8s:zeroOrOneOfMember'],
  },
  // The Scale of the scale subresource (autoscaling/v1 ScaleSpec), for the kinds in SCALE_DECLARATIVE_KINDS.
  [SCALE_DECLARATIONS_KEY]: {
    "spec.replicas": ["+k8s:optional", "+k8s:minimum=0"],
  },
};

/**
 * Migrations the platform made after release 1.35 (wired in 1.36 or later: the immutable
 * PriorityClass value, RoleBinding/ClusterRoleBinding roleRef and Deployment selector).
 * Not run by default; a replica's `declarativeValidation` table may add them.
 */
export const LATER_RELEASE_DECLARATIONS: DeclarativeDeclarations = {
  "scheduling/PriorityClass": {
    value: ["+k8s:immutable"],
  },
  "rbac/RoleBinding": {
    roleRef: ["+k8s:required", "+k8s:immutable"],
  },
  "rbac/ClusterRoleBinding": {
    roleRef: ["+k8s:required", "+k8s:immutable"],
  },
  "apps/Deployment": {
    "spec.selector": ["+k8s:immutable"],
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
