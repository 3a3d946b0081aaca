/**
 * core/v1 shared building blocks: references, selectors, resource lists,
 * scheduling terms (node selectors, taints, tolerations) and the helpers the
 * other core/v1 files use. Protobuf field numbers are the platform's
 * (core/v1 generated.proto).
 *
 * Inlined Go structs (`LocalObjectReference` inside `ConfigMapKeySelector`,
 * `VolumeSource` inside `Volume`, `ProbeHandler` inside `Probe`...) appear as
 * flattened JSON properties without a protobuf tag: in protobuf they sit in a
 * nested message whose field number the schema vocabulary cannot express.
 */
import { enumOf, int32, int64, list, mapOf, named, obj, quantity, str, tag, time, withOpts } from "../../schema/build.ts";
import type { Schema } from "../../schema/types.ts";

/** Marks a core/v1 named definition. */
export const C = (name: string, schema: Schema): Schema => named("core", "v1", name, schema);

/** Short description helper. */
export const d = (schema: Schema, description: string): Schema => withOpts(schema, { description });

/** `ResourceList`: resource name → quantity. */
export const resourceList = (description = "Resource name to quantity."): Schema => mapOf(quantity(), { description });

export const PROTOCOLS = ["TCP", "UDP", "SCTP"];
export const protocol = (opts: { default?: string } = {}): Schema =>
  enumOf(PROTOCOLS, { description: "Network protocol.", ...opts });

export const conditionStatus = (): Schema => enumOf(["True", "False", "Unknown"], { description: "Condition status." });

/** Signals a container may be stopped with (Linux names, real-time ones included). */
export const SIGNALS = [
  ..."ABRT ALRM BUS CHLD CLD CONT FPE HUP ILL INT IO IOT KILL PIPE POLL PROF PWR QUIT SEGV STKFLT STOP SYS TERM TRAP TSTP TTIN TTOU URG USR1 USR2 VTALRM WINCH XCPU XFSZ"
    .split(" ")
    .map((s) => `SIG${s}`),
  "SIGRTMIN",
  ...Array.from({ length: 15 }, (_, i) => `SIGRTMIN+${i + 1}`),
  ...Array.from({ length: 14 }, (_, i) => `SIGRTMAX-${14 - i}`),
  "SIGRTMAX",
];

export const IMAGE_PULL_POLICIES = ["Always", "IfNotPresent", "Never"];

/** The JSON property of an inlined `LocalObjectReference` (`name`, default ""). */
export const inlineLocalName = (): Schema => str({ default: "", description: "Name of the referent in the same namespace." });

/** Copies properties for inlining into another struct: protobuf tags removed (see the file comment). */
export function inlined(properties: Record<string, Schema>): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const [k, v] of Object.entries(properties)) {
    const { protoTag: _drop, ...rest } = v;
    out[k] = rest;
  }
  return out;
}

/**
 * Returns a copy of an object schema whose listed top-level properties are
 * marked immutable (or all properties except `except`).
 */
export function withImmutable(schema: Schema, fields: { only?: string[]; except?: string[] }): Schema {
  const props: Record<string, Schema> = {};
  for (const [k, v] of Object.entries(schema.properties ?? {})) {
    const mark = fields.only ? fields.only.includes(k) : !(fields.except ?? []).includes(k);
    props[k] = mark ? { ...v, immutable: true } : v;
  }
  return { ...schema, properties: props };
}

export const objectReference = C(
  "ObjectReference",
  obj(
    {
      kind: tag(1, str({ description: "Kind of the referent." })),
      namespace: tag(2, str({ description: "Namespace of the referent." })),
      name: tag(3, str({ description: "Name of the referent." })),
      uid: tag(4, str({ description: "UID of the referent." })),
      apiVersion: tag(5, str({ description: "API version of the referent." })),
      resourceVersion: tag(6, str({ description: "Resource version the reference points at, if any." })),
      fieldPath: tag(7, str({ description: "Part of the object referred to, e.g. `spec.containers{app}`." })),
    },
    { mapType: "atomic", description: "Reference to another object." },
  ),
);

export const localObjectReference = C(
  "LocalObjectReference",
  obj({ name: tag(1, inlineLocalName()) }, { mapType: "atomic", description: "Reference to an object in the same namespace." }),
);

export const secretReference = C(
  "SecretReference",
  obj(
    {
      name: tag(1, str({ description: "Secret name." })),
      namespace: tag(2, str({ description: "Secret namespace." })),
    },
    { mapType: "atomic", description: "Reference to a Secret in any namespace." },
  ),
);

export const typedLocalObjectReference = C(
  "TypedLocalObjectReference",
  obj(
    {
      apiGroup: tag(1, str({ description: "API group of the referent; empty for the core group." })),
      kind: tag(2, str({ description: "Kind of the referent." })),
      name: tag(3, str({ description: "Name of the referent." })),
    },
    { required: ["kind", "name"], mapType: "atomic", description: "Typed reference in the same namespace." },
  ),
);

export const typedObjectReference = C(
  "TypedObjectReference",
  obj(
    {
      apiGroup: tag(1, str({ description: "API group of the referent; empty for the core group." })),
      kind: tag(2, str({ description: "Kind of the referent." })),
      name: tag(3, str({ description: "Name of the referent." })),
      namespace: tag(4, str({ description: "Namespace of the referent (cross-namespace data sources)." })),
    },
    { required: ["kind", "name"], description: "Typed reference, possibly in another namespace." },
  ),
);

export const objectFieldSelector = C(
  "ObjectFieldSelector",
  obj(
    {
      apiVersion: tag(1, str({ default: "v1", description: "Schema version the field path is written in." })),
      fieldPath: tag(2, str({ description: "Path of the selected field." })),
    },
    { required: ["fieldPath"], mapType: "atomic", description: "Selects a field of the pod." },
  ),
);

export const resourceFieldSelector = C(
  "ResourceFieldSelector",
  obj(
    {
      containerName: tag(1, str({ description: "Container name; required for volumes." })),
      resource: tag(2, str({ description: "Resource to select, e.g. `limits.cpu`." })),
      divisor: tag(3, quantity({ description: "Output unit, default 1." })),
    },
    { required: ["resource"], mapType: "atomic", description: "Selects a container resource value." },
  ),
);

export const keyToPath = C(
  "KeyToPath",
  obj(
    {
      key: tag(1, str({ description: "Key to project." })),
      path: tag(2, str({ description: "Relative file path for the key." })),
      mode: tag(3, int32({ minimum: 0, maximum: 511, description: "File mode bits." })),
    },
    { required: ["key", "path"], description: "Maps a key to a file path in a volume." },
  ),
);

export const nodeSelectorRequirement = C(
  "NodeSelectorRequirement",
  obj(
    {
      key: tag(1, str({ description: "Label or field key." })),
      operator: tag(2, enumOf(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"], { description: "Relation between key and values." })),
      values: tag(3, list(str(), { listType: "atomic", description: "Values for In, NotIn (several) or Gt, Lt (one integer)." })),
    },
    { required: ["key", "operator"], description: "A node label or field requirement." },
  ),
);

export const nodeSelectorTerm = C(
  "NodeSelectorTerm",
  obj(
    {
      matchExpressions: tag(1, list(nodeSelectorRequirement, { listType: "atomic", description: "Requirements on node labels." })),
      matchFields: tag(2, list(nodeSelectorRequirement, { listType: "atomic", description: "Requirements on node fields." })),
    },
    { mapType: "atomic", description: "ANDed node requirements." },
  ),
);

export const nodeSelector = C(
  "NodeSelector",
  obj(
    { nodeSelectorTerms: tag(1, list(nodeSelectorTerm, { listType: "atomic", description: "ORed terms." })) },
    { required: ["nodeSelectorTerms"], mapType: "atomic", description: "A union of node selector terms." },
  ),
);

export const topologySelectorTerm = C(
  "TopologySelectorTerm",
  obj(
    {
      matchLabelExpressions: tag(
        1,
        list(
          C(
            "TopologySelectorLabelRequirement",
            obj(
              { key: tag(1, str({ description: "Label key." })), values: tag(2, list(str(), { listType: "atomic", description: "Accepted values (ORed)." })) },
              { required: ["key", "values"] },
            ),
          ),
          { listType: "atomic" },
        ),
      ),
    },
    { mapType: "atomic", description: "ANDed topology label requirements." },
  ),
);

export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

export const taint = C(
  "Taint",
  obj(
    {
      key: tag(1, str({ description: "Taint key." })),
      value: tag(2, str({ description: "Taint value." })),
      effect: tag(3, enumOf(TAINT_EFFECTS, { description: "Effect on pods that do not tolerate the taint." })),
      timeAdded: tag(4, time({ description: "When the taint was added (NoExecute taints)." })),
    },
    { required: ["key", "effect"], description: "A node taint." },
  ),
);

export const toleration = C(
  "Toleration",
  obj(
    {
      key: tag(1, str({ description: "Taint key the toleration applies to; empty matches all keys (with Exists)." })),
      operator: tag(2, enumOf(["Exists", "Equal", "Lt", "Gt"], { description: "Relation to the value; Equal when unset." })),
      value: tag(3, str({ description: "Taint value to match." })),
      effect: tag(4, enumOf(TAINT_EFFECTS, { description: "Taint effect to match; empty matches all effects." })),
      tolerationSeconds: tag(5, int64({ description: "How long a NoExecute taint is tolerated." })),
    },
    { description: "Tolerates taints matching key, value and effect." },
  ),
);

export const resourceClaim = C(
  "ResourceClaim",
  obj(
    {
      name: tag(1, str({ description: "Name of an entry in pod spec.resourceClaims." })),
      request: tag(2, str({ description: "Request within the claim; empty means all." })),
    },
    { required: ["name"], description: "Claim used by a container." },
  ),
);

export const resourceRequirements = C(
  "ResourceRequirements",
  obj(
    {
      limits: tag(1, resourceList("Maximum resources allowed.")),
      requests: tag(2, resourceList("Minimum resources required.")),
      claims: tag(3, list(resourceClaim, { listType: "map", mapKeys: ["name"], description: "Resource claims used by the container." })),
    },
    { description: "Compute resource requirements." },
  ),
);

export const volumeResourceRequirements = C(
  "VolumeResourceRequirements",
  obj(
    {
      limits: tag(1, resourceList("Maximum storage resources.")),
      requests: tag(2, resourceList("Minimum storage resources.")),
    },
    { description: "Storage resource requirements." },
  ),
);
