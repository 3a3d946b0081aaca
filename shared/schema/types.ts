/**
 * The internal form of the typed schema. It is structural (like a custom
 * resource's structural OpenAPI v3 schema) so that built-in kinds and custom
 * resources share one engine: validation, unknown-field detection, defaulting,
 * pruning, OpenAPI output, strategic merge, server-side apply and protobuf.
 *
 * Invariant: a node with `properties` or `additionalProperties` has type "object";
 * a node with `items` has type "array". A node without `type` accepts any value
 * (only with `intOrString` or `preserveUnknownFields`).
 */
import type { GroupKey } from "../platform/index.ts";

export type SchemaType = "object" | "array" | "string" | "integer" | "number" | "boolean";

/** Value formats the validator knows. */
export type SchemaFormat =
  | "int32"
  | "int64"
  | "double"
  | "byte"
  | "date-time"
  | "date"
  | "duration"
  | "quantity"
  | "dns1123-label"
  | "dns1123-subdomain"
  | "path-segment-name"
  | "label-key"
  | "label-value"
  | "uid"
  | "ip";

export type ListType = "atomic" | "set" | "map";
export type MapType = "atomic" | "granular";
export type PatchStrategy = "merge" | "replace" | "retainKeys" | "merge,retainKeys";

export interface Schema {
  type?: SchemaType;
  description?: string;
  /** Named definition (`core.v1.Container`): OpenAPI emits a $ref; the name is profile-independent. */
  definition?: DefinitionRef;
  properties?: Record<string, Schema>;
  required?: string[];
  /** Map values (a map from string keys to this schema). */
  additionalProperties?: Schema;
  items?: Schema;
  enum?: Array<string | number>;
  format?: SchemaFormat;
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  pattern?: string;
  /** Accepts an integer or a string (`x-…-int-or-string`). */
  intOrString?: boolean;
  /** Keeps unknown fields below this node (`x-…-preserve-unknown-fields`). */
  preserveUnknownFields?: boolean;
  /** The value is an object with apiVersion, kind and metadata (`x-…-embedded-resource`). */
  embeddedResource?: boolean;
  listType?: ListType;
  listMapKeys?: string[];
  mapType?: MapType;
  patchStrategy?: PatchStrategy;
  patchMergeKey?: string;
  /** Protobuf field number of this property within its parent message. */
  protoTag?: number;
  /** The field cannot change once set (validated on update). */
  immutable?: boolean;
  /** With `immutable`: a change is Forbidden with this detail (`updates to parameters are forbidden.`) instead of `field is immutable`. */
  immutableForbidden?: string;
  /** The field is set by the server only (stripped from user input where the strategy says so). */
  readOnly?: boolean;
}

/** A named, shared type: `{ group, version, name }` → OpenAPI definition name via the profile. */
export interface DefinitionRef {
  group: GroupKey;
  version: string;
  name: string;
  /** The type's own description (set by `named`); a different `description` on a node is its use site's. */
  description?: string;
}

/** Table column as the platform prints it (`kubectl get`). */
export interface TableColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  format?: string;
  description?: string;
  /** Lower priority columns appear only in wide output (priority 1). */
  priority?: number;
  /** JSONPath-like dotted path into the object, or a function computing the cell. */
  path?: string;
  cell?: (obj: Record<string, unknown>) => unknown;
}

export type SubresourceName = "status" | "scale" | "token" | "eviction" | "binding" | "log" | "exec" | "attach" | "portforward" | "proxy" | "ephemeralcontainers" | "resize" | "approval" | "finalize";

/** Scale subresource mapping for workloads. */
export interface ScaleMapping {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Everything the server needs to know about one kind in one group version. */
export interface KindDefinition {
  group: GroupKey;
  version: string;
  kind: string;
  /** Resource type name used in URLs (`pods`). */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources?: SubresourceName[];
  scale?: ScaleMapping;
  /** Verbs served on the collection/object (default: all CRUD verbs). */
  verbs?: string[];
  /** The whole object schema (apiVersion, kind, metadata, spec, status...). */
  schema: Schema;
  tableColumns?: TableColumn[];
  /** Order of the rows of a list's Table where the platform's printer sorts them (FlowSchemas by precedence); default: list order. */
  tableRowOrder?: (a: Record<string, unknown>, b: Record<string, unknown>) => number;
  /** Protobuf messages exist for this kind. */
  protobuf?: boolean;
  /** A virtual kind (reviews): create only, never stored. */
  virtual?: boolean;
  /** Fields (dotted paths) usable in field selectors besides metadata.name/namespace. */
  selectableFields?: string[];
  /** Create on PUT when absent. */
  allowCreateOnUpdate?: boolean;
  /** Update without resourceVersion is allowed. */
  allowUnconditionalUpdate?: boolean;
  /** Rule for metadata.name (default `dns1123-subdomain`; namespaces `dns1123-label`; RBAC kinds `path-segment-name`). */
  nameFormat?: SchemaFormat;
  /** Defaults that the schema cannot express (computed from other fields); runs after schema defaults, mutates in place, idempotent. */
  defaulter?: (obj: Record<string, unknown>) => void;
  /** Kind-specific validation beyond the schema (cross-field rules); returns field errors with full paths. */
  validateKind?: (obj: Record<string, unknown>) => FieldError[];
  /** The kind is served but not preferred / deprecated: shown in discovery, `Warning` header on use. */
  deprecated?: { removedRelease?: string; replacement?: string };
  /** A custom resource (served from a CRD): no strategic merge patch, no protobuf. */
  custom?: boolean;
  /** The `Warning` header text of a request to this version (deprecated custom resource versions). */
  deprecationWarning?: string;
}

/** A field-path error, formatted as the platform does (`spec.containers[0].name: Required value`). */
export interface FieldError {
  /** `Required`, `Invalid`, `NotSupported`, `Duplicate`, `TooLong`, `TooMany`, `Forbidden`, `FieldValueUnknown`… */
  type: FieldErrorType;
  field: string;
  message: string;
  value?: unknown;
}

export type FieldErrorType =
  | "FieldValueRequired"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueDuplicate"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueForbidden"
  | "FieldValueTypeInvalid"
  | "FieldValueNotFound"
  | "FieldValueUnknown";
