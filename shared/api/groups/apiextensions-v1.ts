/**
 * apiextensions/v1: CustomResourceDefinition (cluster-scoped, `crd`/`crds`,
 * category `api-extensions`, `status` subresource).
 *
 * This module exports a factory, `makeKinds(profile)`: the keys of a CRD's
 * OpenAPI schema include the platform's vendor extensions
 * (`x-…-preserve-unknown-fields`, `x-…-list-type`, …), whose names only the
 * naming profile may spell. `jsonSchemaProps(ext)` builds the schema of one
 * schema node for a given set of extension names.
 *
 * JSONSchemaProps is recursive. It is declared as ONE named definition
 * (`JSONSchemaProps`) whose nested positions (`properties`, `items`, `allOf`,
 * `anyOf`, `oneOf`, `not`, `patternProperties`, `definitions`) refer back to
 * that same definition: the JS object graph contains a cycle through the
 * shared `properties` record. The engine terminates because every walk is
 * driven by the value (validation, unknown-field detection, defaulting and
 * pruning descend only where the value has data); a schema-only walker (OpenAPI
 * or protobuf output) must stop at a `definition` it has already emitted.
 * Positions that the platform types as a union (`additionalProperties` and
 * `additionalItems`: a schema or a boolean; `dependencies` values: a schema or
 * a string list; `default`, `example`, `enum` items: any JSON) are `anyValue()`
 * and are checked by the structural validator in `validateKind`.
 *
 * Protobuf field numbers are the platform's (apiextensions/v1 generated.proto).
 * Defaulting and validation beyond the schema are in apiextensions-v1-rules.ts.
 */
import type { ExtensionNames, PlatformProfile } from "../../platform/index.ts";
import { anyValue, bool, bytes, enumOf, int32, int64, list, mapOf, named, num, obj, str, tag, time, withOpts } from "../../schema/build.ts";
import type { KindDefinition, Schema, TableColumn } from "../../schema/types.ts";
import { defaultCRD, validateCRD } from "./apiextensions-v1-rules.ts";
export { ACCEPTED_CONVERSION_REVIEW_VERSIONS, PRINTER_COLUMN_FORMATS } from "./apiextensions-v1-rules.ts";
import { objectKind } from "./meta-v1.ts";

const X = (name: string, schema: Schema) => named("apiextensions", "v1", name, schema);
const atomicStrings = (description: string) => list(str(), { listType: "atomic", description });

export const JSON_SCHEMA_TYPES = ["array", "boolean", "integer", "number", "object", "string"];
export const PRINTER_COLUMN_TYPES = ["integer", "number", "string", "boolean", "date"];
export const VALIDATION_RULE_REASONS = ["FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"];

export const validationRule = X(
  "ValidationRule",
  obj(
    {
      rule: tag(1, str({ description: "A CEL expression over `self` (and `oldSelf`) at this schema node." })),
      message: tag(2, str({ description: "Message on failure; required when the rule has line breaks." })),
      messageExpression: tag(3, str({ description: "A CEL expression yielding the failure message." })),
      reason: tag(4, enumOf(VALIDATION_RULE_REASONS, { description: "Field error type reported on failure; FieldValueInvalid when unset." })),
      fieldPath: tag(5, str({ description: "Relative JSON path of the field the error is reported on." })),
      optionalOldSelf: tag(6, bool({ description: "Evaluate on create too, with `oldSelf` as an optional." })),
    },
    { required: ["rule"] },
  ),
);

/** The schema of one OpenAPI v3 schema node of a CRD, with the profile's extension keys. Recursive; see the module comment. */
export function jsonSchemaProps(ext: ExtensionNames): Schema {
  const properties: Record<string, Schema> = {};
  const self = X("JSONSchemaProps", obj(properties, { description: "A JSON-Schema (draft 4 subset with OpenAPI v3 and platform extensions)." }));
  Object.assign(properties, {
    id: tag(1, str()),
    $schema: tag(2, str()),
    $ref: tag(3, str()),
    description: tag(4, str()),
    type: tag(5, enumOf(JSON_SCHEMA_TYPES)),
    format: tag(6, str({ description: "OpenAPI format; unknown formats are ignored." })),
    title: tag(7, str()),
    default: tag(8, anyValue({ description: "Default for an absent field (any JSON)." })),
    maximum: tag(9, num()),
    exclusiveMaximum: tag(10, bool()),
    minimum: tag(11, num()),
    exclusiveMinimum: tag(12, bool()),
    maxLength: tag(13, int64()),
    minLength: tag(14, int64()),
    pattern: tag(15, str()),
    maxItems: tag(16, int64()),
    minItems: tag(17, int64()),
    uniqueItems: tag(18, bool()),
    multipleOf: tag(19, num()),
    enum: tag(20, list(anyValue(), { listType: "atomic" })),
    maxProperties: tag(21, int64()),
    minProperties: tag(22, int64()),
    required: tag(23, atomicStrings("Names of required properties.")),
    items: tag(24, withOpts(self, { description: "Schema of the items; a single schema (the array form is not structural)." })),
    allOf: tag(25, list(self, { listType: "atomic" })),
    oneOf: tag(26, list(self, { listType: "atomic" })),
    anyOf: tag(27, list(self, { listType: "atomic" })),
    not: tag(28, self),
    properties: tag(29, mapOf(self)),
    additionalProperties: tag(30, anyValue({ description: "A schema for map values, or a boolean." })),
    patternProperties: tag(31, mapOf(self)),
    dependencies: tag(32, mapOf(anyValue(), { description: "Per property: a schema or a list of property names." })),
    additionalItems: tag(33, anyValue({ description: "A schema or a boolean." })),
    definitions: tag(34, mapOf(self)),
    externalDocs: tag(35, X("ExternalDocumentation", obj({ description: tag(1, str()), url: tag(2, str()) }))),
    example: tag(36, anyValue()),
    nullable: tag(37, bool()),
    [ext.preserveUnknownFields]: tag(38, bool({ description: "Keep fields the schema does not specify (true or unset)." })),
    [ext.embeddedResource]: tag(39, bool({ description: "The value is an object with apiVersion, kind and metadata." })),
    [ext.intOrString]: tag(40, bool({ description: "The value is an integer or a string." })),
    [ext.listMapKeys]: tag(41, atomicStrings("Keys of a list of type map.")),
    [ext.listType]: tag(42, enumOf(["atomic", "set", "map"])),
    [ext.mapType]: tag(43, enumOf(["granular", "atomic"])),
    [ext.validations]: tag(
      44,
      list(validationRule, { listType: "map", mapKeys: ["rule"], patchStrategy: "merge", patchMergeKey: "rule", description: "CEL validation rules." }),
    ),
  });
  return self;
}

export const serviceReference = X(
  "ServiceReference",
  obj(
    {
      namespace: tag(1, str()),
      name: tag(2, str()),
      path: tag(3, str({ description: "URL path of the webhook on the service." })),
      port: tag(4, int32({ default: 443, description: "Service port (1-65535)." })),
    },
    { required: ["namespace", "name"] },
  ),
);

export const webhookClientConfig = X(
  "WebhookClientConfig",
  obj({
    url: tag(3, str({ description: "`https://host[:port]/path`; exactly one of url and service." })),
    service: tag(1, serviceReference),
    caBundle: tag(2, bytes({ description: "PEM CA bundle to verify the webhook's serving certificate." })),
  }),
);

export const webhookConversion = X(
  "WebhookConversion",
  obj(
    {
      clientConfig: tag(2, webhookClientConfig),
      conversionReviewVersions: tag(3, atomicStrings("ConversionReview versions the webhook accepts, preferred first; must include v1 or v1beta1.")),
    },
    { required: ["conversionReviewVersions"] },
  ),
);

export const customResourceConversion = X(
  "CustomResourceConversion",
  obj(
    {
      strategy: tag(1, enumOf(["None", "Webhook"], { description: "None (only apiVersion changes) or Webhook." })),
      webhook: tag(2, webhookConversion),
    },
    { required: ["strategy"] },
  ),
);

export const names = X(
  "CustomResourceDefinitionNames",
  obj(
    {
      plural: tag(1, str({ description: "Resource name in URLs; lowercase; the CRD is named `<plural>.<group>`." })),
      singular: tag(2, str({ description: "Lowercase singular name; defaults to the lowercased kind." })),
      shortNames: tag(3, atomicStrings("Lowercase short names for clients.")),
      kind: tag(4, str({ description: "The kind of the objects (CamelCase)." })),
      listKind: tag(5, str({ description: "The kind of lists; defaults to `<kind>List`." })),
      categories: tag(6, atomicStrings("Groups of resources this one belongs to (`all`).")),
    },
    { required: ["plural", "kind"] },
  ),
);

export const printerColumn = X(
  "CustomResourceColumnDefinition",
  obj(
    {
      name: tag(1, str()),
      type: tag(2, enumOf(PRINTER_COLUMN_TYPES)),
      format: tag(3, str({ description: "An OpenAPI format (int32, int64, float, double, byte, date, date-time, password)." })),
      description: tag(4, str()),
      priority: tag(5, int32({ description: "0 for the standard view; greater for wide output." })),
      jsonPath: tag(6, str({ description: "Simple JSON path evaluated against each object." })),
    },
    { required: ["name", "type", "jsonPath"] },
  ),
);

export const subresources = X(
  "CustomResourceSubresources",
  obj({
    status: tag(1, X("CustomResourceSubresourceStatus", obj({}, { description: "Serve `/status`; the main endpoint ignores status changes." }))),
    scale: tag(
      2,
      X(
        "CustomResourceSubresourceScale",
        obj(
          {
            specReplicasPath: tag(1, str({ description: "JSON path under `.spec` of the desired replicas." })),
            statusReplicasPath: tag(2, str({ description: "JSON path under `.status` of the observed replicas." })),
            labelSelectorPath: tag(3, str({ description: "JSON path under `.spec` or `.status` of a serialized label selector." })),
          },
          { required: ["specReplicasPath", "statusReplicasPath"] },
        ),
      ),
    ),
  }),
);

export function crdVersion(ext: ExtensionNames): Schema {
  return X(
    "CustomResourceDefinitionVersion",
    obj(
      {
        name: tag(1, str({ description: "The version name (`v1`, `v2beta1`)." })),
        served: tag(2, bool({ description: "Serve this version through the REST API." })),
        storage: tag(3, bool({ description: "Objects are stored in this version; exactly one version has it." })),
        deprecated: tag(7, bool({ description: "Requests to this version get a warning header." })),
        deprecationWarning: tag(8, str({ description: "Overrides the default warning; deprecated versions only." })),
        schema: tag(4, X("CustomResourceValidation", obj({ openAPIV3Schema: tag(1, jsonSchemaProps(ext)) }))),
        subresources: tag(5, subresources),
        additionalPrinterColumns: tag(6, list(printerColumn, { listType: "atomic", description: "Extra table columns." })),
        selectableFields: tag(
          9,
          list(X("SelectableField", obj({ jsonPath: tag(1, str({ description: "Simple JSON path of a string, integer or boolean field." })) }, { required: ["jsonPath"] })), {
            listType: "atomic",
            description: "Fields usable in field selectors.",
          }),
        ),
      },
      { required: ["name", "served", "storage"] },
    ),
  );
}

export const crdCondition = X(
  "CustomResourceDefinitionCondition",
  obj(
    {
      type: tag(1, str({ description: "Established, NamesAccepted, NonStructuralSchema, Terminating, KubernetesAPIApprovalPolicyConformant…" })),
      status: tag(2, enumOf(["True", "False", "Unknown"])),
      lastTransitionTime: tag(3, time()),
      reason: tag(4, str()),
      message: tag(5, str()),
    },
    { required: ["type", "status"] },
  ),
);

export function crdSchema(ext: ExtensionNames): Schema {
  const spec = X(
    "CustomResourceDefinitionSpec",
    obj(
      {
        group: tag(1, str({ description: "API group of the custom resources; a DNS subdomain with at least one dot." })),
        names: tag(3, names),
        scope: tag(4, enumOf(["Cluster", "Namespaced"])),
        versions: tag(7, list(crdVersion(ext), { listType: "atomic", description: "All versions; exactly one is the storage version." })),
        conversion: tag(9, withOpts(customResourceConversion, { default: { strategy: "None" } })),
        preserveUnknownFields: tag(10, bool({ description: "Deprecated; must not be true in v1 (use the preserve-unknown-fields extension in the schema)." })),
      },
      { required: ["group", "names", "scope", "versions"] },
    ),
  );
  const status = X(
    "CustomResourceDefinitionStatus",
    obj({
      conditions: tag(1, list(crdCondition, { listType: "map", mapKeys: ["type"] })),
      acceptedNames: tag(2, withOpts(names, { description: "The names actually served; may differ from spec.names." })),
      storedVersions: tag(3, atomicStrings("Every version objects were ever stored in.")),
    }),
  );
  return objectKind({ spec: tag(2, spec), status: tag(3, status) }, { required: ["spec"] });
}

const createdAtColumn: TableColumn = {
  name: "Created At",
  type: "date",
  description: "Time the object was created.",
  path: "metadata.creationTimestamp",
};

export function makeKinds(profile: PlatformProfile): KindDefinition[] {
  const ext = profile.ext;
  return [
    {
      group: "apiextensions",
      version: "v1",
      kind: "CustomResourceDefinition",
      plural: "customresourcedefinitions",
      singular: "customresourcedefinition",
      namespaced: false,
      shortNames: ["crd", "crds"],
      categories: ["api-extensions"],
      subresources: ["status"],
      protobuf: true,
      schema: crdSchema(ext),
      tableColumns: [createdAtColumn],
      defaulter: defaultCRD,
      validateKind: (obj) => validateCRD(obj, ext),
    },
  ];
}
