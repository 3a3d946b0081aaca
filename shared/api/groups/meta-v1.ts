/**
 * meta/v1: the object model shared by every kind (ObjectMeta, ListMeta, Status,
 * DeleteOptions, LabelSelector, Condition, managed-field entries, Table, WatchEvent)
 * and `objectKind`, which wraps a spec/status into a top-level kind schema.
 * Protobuf field numbers are the platform's.
 */
import { anyValue, bool, enumOf, int32, int64, list, mapOf, named, obj, str, tag, time, format } from "../../schema/build.ts";
import type { Schema } from "../../schema/types.ts";

const M = (name: string, schema: Schema) => named("meta", "v1", name, schema);

export const ownerReference = M(
  "OwnerReference",
  obj(
    {
      apiVersion: tag(5, str()),
      kind: tag(1, str()),
      name: tag(3, str()),
      uid: tag(4, format("uid")),
      controller: tag(6, bool()),
      blockOwnerDeletion: tag(7, bool()),
    },
    { required: ["apiVersion", "kind", "name", "uid"], mapType: "atomic" },
  ),
);

export const managedFieldsEntry = M(
  "ManagedFieldsEntry",
  obj({
    manager: tag(1, str()),
    operation: tag(2, enumOf(["Apply", "Update"])),
    apiVersion: tag(3, str()),
    time: tag(4, time()),
    fieldsType: tag(6, enumOf(["FieldsV1"])),
    fieldsV1: tag(7, M("FieldsV1", anyValue({ type: "object" }))),
    subresource: tag(8, str()),
  }),
);

export const objectMeta = M(
  "ObjectMeta",
  obj({
    name: tag(1, str()),
    generateName: tag(2, str()),
    namespace: tag(3, str()),
    selfLink: tag(4, str()),
    uid: tag(5, str()),
    resourceVersion: tag(6, str()),
    generation: tag(7, int64()),
    creationTimestamp: tag(8, time()),
    deletionTimestamp: tag(9, time()),
    deletionGracePeriodSeconds: tag(10, int64()),
    labels: tag(11, mapOf(str())),
    annotations: tag(12, mapOf(str())),
    ownerReferences: tag(13, list(ownerReference, { listType: "map", mapKeys: ["uid"], patchStrategy: "merge", patchMergeKey: "uid" })),
    finalizers: tag(14, list(str(), { listType: "set", patchStrategy: "merge" })),
    managedFields: tag(17, list(managedFieldsEntry, { listType: "atomic" })),
  }),
);

export const listMeta = M(
  "ListMeta",
  obj({
    selfLink: tag(1, str()),
    resourceVersion: tag(2, str()),
    continue: tag(3, str()),
    remainingItemCount: tag(4, int64()),
  }),
);

export const labelSelectorRequirement = M(
  "LabelSelectorRequirement",
  obj(
    {
      key: tag(1, str()),
      operator: tag(2, enumOf(["In", "NotIn", "Exists", "DoesNotExist"])),
      values: tag(3, list(str(), { listType: "atomic" })),
    },
    { required: ["key", "operator"] },
  ),
);

export const labelSelector = M(
  "LabelSelector",
  obj(
    {
      matchLabels: tag(1, mapOf(str())),
      matchExpressions: tag(2, list(labelSelectorRequirement, { listType: "atomic" })),
    },
    { mapType: "atomic" },
  ),
);

export const condition = M(
  "Condition",
  obj(
    {
      type: tag(1, str({ maxLength: 316 })),
      status: tag(2, enumOf(["True", "False", "Unknown"])),
      observedGeneration: tag(3, int64({ minimum: 0 })),
      lastTransitionTime: tag(4, time()),
      reason: tag(5, str({ maxLength: 1024, minLength: 1 })),
      message: tag(6, str({ maxLength: 32768 })),
    },
    { required: ["type", "status", "lastTransitionTime", "reason", "message"] },
  ),
);

export const statusCause = M("StatusCause", obj({ reason: tag(1, str()), message: tag(2, str()), field: tag(3, str()) }));

export const statusDetails = M(
  "StatusDetails",
  obj({
    name: tag(1, str()),
    group: tag(2, str()),
    kind: tag(3, str()),
    uid: tag(6, str()),
    causes: tag(4, list(statusCause, { listType: "atomic" })),
    retryAfterSeconds: tag(5, int32()),
  }),
);

export const status = M(
  "Status",
  obj({
    apiVersion: str(),
    kind: str(),
    metadata: tag(1, listMeta),
    status: tag(2, str()),
    message: tag(3, str()),
    reason: tag(4, str()),
    details: tag(5, statusDetails),
    code: tag(6, int32()),
  }),
);

export const preconditions = M("Preconditions", obj({ uid: tag(1, str()), resourceVersion: tag(2, str()) }));

export const deleteOptions = M(
  "DeleteOptions",
  obj({
    apiVersion: str(),
    kind: str(),
    gracePeriodSeconds: tag(1, int64()),
    preconditions: tag(2, preconditions),
    orphanDependents: tag(3, bool()),
    propagationPolicy: tag(4, enumOf(["Orphan", "Background", "Foreground"])),
    dryRun: tag(5, list(str(), { listType: "atomic" })),
    ignoreStoreReadErrorWithClusterBreakingPotential: tag(6, bool()),
  }),
);

export const watchEvent = M(
  "WatchEvent",
  obj({ type: tag(1, str()), object: tag(2, anyValue({ type: "object" })) }, { required: ["type", "object"] }),
);

export const tableColumnDefinition = M(
  "TableColumnDefinition",
  obj({
    name: tag(1, str()),
    type: tag(2, str()),
    format: tag(3, str()),
    description: tag(4, str()),
    priority: tag(5, int32()),
  }),
);

export const tableRow = M(
  "TableRow",
  obj({
    cells: tag(1, list(anyValue(), { listType: "atomic" })),
    conditions: tag(2, list(obj({ type: str(), status: str(), reason: str(), message: str() }), { listType: "atomic" })),
    object: tag(3, anyValue({ type: "object" })),
  }),
);

export const table = M(
  "Table",
  obj({
    apiVersion: str(),
    kind: str(),
    metadata: tag(1, listMeta),
    columnDefinitions: tag(2, list(tableColumnDefinition, { listType: "atomic" })),
    rows: tag(3, list(tableRow, { listType: "atomic" })),
  }),
);

/** Standard top-level fields of an object kind. `spec`/`status` and any other fields are given by the caller. */
export function objectKind(fields: Record<string, Schema>, opts: { required?: string[] } = {}): Schema {
  return obj(
    {
      apiVersion: str(),
      kind: str(),
      metadata: tag(1, objectMeta),
      ...fields,
    },
    opts.required ? { required: opts.required } : {},
  );
}

/** The list kind of an item schema (`items` tag 2, `metadata` tag 1). */
export function listKind(item: Schema): Schema {
  return obj({ apiVersion: str(), kind: str(), metadata: tag(1, listMeta), items: tag(2, list(item, { listType: "atomic" })) }, { required: ["items"] });
}
