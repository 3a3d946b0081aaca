/**
 * The Migration table (Part 2, Versioning, "Migration facts for removed versions") as
 * data: for each removed group version and kind, the versions it may be converted to
 * (the first is the default when no output version is asked for) and the field changes
 * (transforms.ts). `convertDocument` moves one document to a target version or throws a
 * `ConversionError` saying why it cannot.
 */
import type { GroupKey, PlatformProfile } from "../../../shared/platform/index.ts";
import { accessReview, ConversionError, crd, csr, endpointSlice, flowControl, hpa, ingress, pdb, podSecurityPolicy, webhooks, workload, type Obj, type Transform } from "./transforms.ts";

/** A group by its profile key, or a legacy group name that no profile renames (`extensions`). */
type GroupRef = GroupKey | { legacy: string };

interface Migration {
  removedIn: string;
  kinds: string[];
  from: Array<[GroupRef, string]>;
  /** Replacement versions, preferred first; empty when there is none. */
  to: Array<[GroupKey, string]>;
  transform?: Transform;
}

const EXT: GroupRef = { legacy: "extensions" };
const WORKLOADS = ["DaemonSet", "Deployment", "StatefulSet", "ReplicaSet"];
const REVIEWS = ["SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview"];
const RBAC = ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"];

export const MIGRATIONS: readonly Migration[] = [
  { removedIn: "1.32", kinds: ["FlowSchema", "PriorityLevelConfiguration"], from: [["flowcontrol", "v1beta3"]], to: [["flowcontrol", "v1"]], transform: flowControl },
  { removedIn: "1.29", kinds: ["FlowSchema", "PriorityLevelConfiguration"], from: [["flowcontrol", "v1beta2"]], to: [["flowcontrol", "v1"], ["flowcontrol", "v1beta3"]], transform: flowControl },
  { removedIn: "1.27", kinds: ["CSIStorageCapacity"], from: [["storage", "v1beta1"]], to: [["storage", "v1"]] },
  { removedIn: "1.26", kinds: ["FlowSchema", "PriorityLevelConfiguration"], from: [["flowcontrol", "v1beta1"]], to: [["flowcontrol", "v1"], ["flowcontrol", "v1beta2"]], transform: flowControl },
  { removedIn: "1.26", kinds: ["HorizontalPodAutoscaler"], from: [["autoscaling", "v2beta2"]], to: [["autoscaling", "v2"]] },
  { removedIn: "1.25", kinds: ["CronJob"], from: [["batch", "v1beta1"]], to: [["batch", "v1"]] },
  { removedIn: "1.25", kinds: ["EndpointSlice"], from: [["discovery", "v1beta1"]], to: [["discovery", "v1"]], transform: endpointSlice },
  { removedIn: "1.25", kinds: ["Event"], from: [["events", "v1beta1"]], to: [["events", "v1"]] },
  { removedIn: "1.25", kinds: ["HorizontalPodAutoscaler"], from: [["autoscaling", "v2beta1"]], to: [["autoscaling", "v2"]], transform: hpa },
  { removedIn: "1.25", kinds: ["PodDisruptionBudget"], from: [["policy", "v1beta1"]], to: [["policy", "v1"]], transform: pdb },
  { removedIn: "1.25", kinds: ["PodSecurityPolicy"], from: [["policy", "v1beta1"]], to: [], transform: podSecurityPolicy },
  { removedIn: "1.25", kinds: ["RuntimeClass"], from: [["node", "v1beta1"]], to: [["node", "v1"]] },
  { removedIn: "1.22", kinds: ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"], from: [["admissionregistration", "v1beta1"]], to: [["admissionregistration", "v1"]], transform: webhooks },
  { removedIn: "1.22", kinds: ["CustomResourceDefinition"], from: [["apiextensions", "v1beta1"]], to: [["apiextensions", "v1"]], transform: crd },
  { removedIn: "1.22", kinds: ["APIService"], from: [["apiregistration", "v1beta1"]], to: [["apiregistration", "v1"]] },
  { removedIn: "1.22", kinds: ["TokenReview"], from: [["authentication", "v1beta1"]], to: [["authentication", "v1"]] },
  { removedIn: "1.22", kinds: REVIEWS, from: [["authorization", "v1beta1"]], to: [["authorization", "v1"]], transform: accessReview },
  { removedIn: "1.22", kinds: ["CertificateSigningRequest"], from: [["certificates", "v1beta1"]], to: [["certificates", "v1"]], transform: csr },
  { removedIn: "1.22", kinds: ["Lease"], from: [["coordination", "v1beta1"]], to: [["coordination", "v1"]] },
  { removedIn: "1.22", kinds: ["Ingress"], from: [[EXT, "v1beta1"], ["networking", "v1beta1"]], to: [["networking", "v1"]], transform: ingress },
  { removedIn: "1.22", kinds: ["IngressClass"], from: [["networking", "v1beta1"]], to: [["networking", "v1"]] },
  { removedIn: "1.22", kinds: RBAC, from: [["rbac", "v1beta1"]], to: [["rbac", "v1"]] },
  { removedIn: "1.22", kinds: ["PriorityClass"], from: [["scheduling", "v1beta1"]], to: [["scheduling", "v1"]] },
  { removedIn: "1.22", kinds: ["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"], from: [["storage", "v1beta1"]], to: [["storage", "v1"]] },
  { removedIn: "1.16", kinds: ["NetworkPolicy"], from: [[EXT, "v1beta1"]], to: [["networking", "v1"]] },
  // Each old version served only some of the four workloads (extensions: no StatefulSet; apps/v1beta1: Deployment and StatefulSet).
  { removedIn: "1.16", kinds: ["DaemonSet", "Deployment", "ReplicaSet"], from: [[EXT, "v1beta1"]], to: [["apps", "v1"]], transform: workload },
  { removedIn: "1.16", kinds: ["Deployment", "StatefulSet"], from: [["apps", "v1beta1"]], to: [["apps", "v1"]], transform: workload },
  { removedIn: "1.16", kinds: WORKLOADS, from: [["apps", "v1beta2"]], to: [["apps", "v1"]], transform: workload },
  { removedIn: "1.16", kinds: ["PodSecurityPolicy"], from: [[EXT, "v1beta1"]], to: [], transform: podSecurityPolicy },
];

/** The apiVersion a table group and version is written as in the profile. */
export function apiVersionOf(profile: PlatformProfile, g: GroupRef, version: string): string {
  return typeof g === "string" ? profile.apiVersion(g, version) : `${g.legacy}/${version}`;
}

export interface Converted {
  doc: Obj;
  notes: string[];
}

/** The migration of a document (by apiVersion and kind), if the table has one. */
export function migrationOf(profile: PlatformProfile, apiVersion: string, kind: string): Migration | undefined {
  return MIGRATIONS.find((m) => m.kinds.includes(kind) && m.from.some(([g, v]) => apiVersionOf(profile, g, v) === apiVersion));
}

/** Moves one document to `target` (a group/version), or to its table replacement when `target` is undefined. */
export function convertDocument(profile: PlatformProfile, input: Obj, target: string | undefined): Converted {
  const apiVersion = String(input.apiVersion ?? "");
  const kind = String(input.kind ?? "");
  if (target !== undefined && apiVersion === target) return { doc: input, notes: [] };
  const m = migrationOf(profile, apiVersion, kind);
  if (!m) {
    if (target === undefined) return { doc: input, notes: [] };
    throw new ConversionError(`${kind} ${apiVersion} has no conversion to ${target} in the Migration table`);
  }
  const replacements = m.to.map(([g, v]) => profile.apiVersion(g, v));
  const to = target ?? replacements[0];
  const doc = structuredClone(input);
  const notes: string[] = [];
  if (to === undefined || !replacements.includes(to)) {
    // A kind without a replacement explains itself; others name where they can go.
    if (m.transform && replacements.length === 0) m.transform(doc, { profile, from: apiVersion, notes });
    throw new ConversionError(`${kind} ${apiVersion} (removed in ${m.removedIn}) cannot be converted to ${to}: the replacement is ${replacements.join(" or ")}`);
  }
  doc.apiVersion = to;
  m.transform?.(doc, { profile, from: apiVersion, notes });
  return { doc, notes };
}
