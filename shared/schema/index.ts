/**
 * The typed-schema engine: pure functions derived from a `Schema` (types.ts).
 * Builders are in build.ts; everything else is re-exported here.
 */
export * from "./formats.ts";
export { fieldErrors, formatFieldError, renderValue } from "./field-errors.ts";
export { childPath, indexPath, keyPath } from "./path.ts";
export { cloneValue, deepEqual, isObject, jsonTypeName } from "./values.ts";
export { validate } from "./validate.ts";
export { validateObjectMeta, validateLabels, validateAnnotations, validateFinalizers, type ObjectMetaOptions } from "./object-meta.ts";
export { validateImmutable, FIELD_IMMUTABLE_MSG } from "./immutable.ts";
export { applyDefaults } from "./defaults.ts";
export { findUnknownFields, unknownFieldMessage, fieldRule, keepsEverything, KEEP, type FieldRule } from "./unknown-fields.ts";
export { prune, type PruneResult } from "./prune.ts";
export {
  decodeJsonStrict,
  decodeYamlStrict,
  duplicateFieldMessage,
  DecodeError,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ALIAS_COUNT,
  type DecodeOptions,
  type DecodeResult,
  type YamlDecodeOptions,
} from "./strict-decode.ts";
export { openapiV2, openapiV3, type OpenAPIOptions } from "./openapi.ts";
export { convert as toOpenAPISchema, type ConvertContext } from "./openapi-schema.ts";
export { kindPaths, groupVersionPrefix, type PathSpec, type OperationSpec } from "./openapi-paths.ts";
