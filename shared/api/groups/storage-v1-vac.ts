/**
 * storage/v1 VolumeAttributesClass (GA in release 1.34, cluster-scoped): a named set of
 * parameters a CSI driver applies to a volume (ControllerModifyVolume). Protobuf field
 * numbers are the platform's (storage/v1 generated.proto). As on the platform:
 * driverName is required and a qualified name (lower-cased), parameters hold at least
 * one pair (at most 512, 256 KiB in all, no empty key), and neither may change: an
 * update is Forbidden with the platform's "updates to … are forbidden." detail.
 */
import { mapOf, named, str, tag } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { isQualifiedName } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { isObj, type Obj } from "./workload-rules.ts";

const PARAMETERS_MAX = 512;
const PARAMETERS_MAX_BYTES = 256 * 1024;

export const volumeAttributesClass: Schema = named(
  "storage",
  "v1",
  "VolumeAttributesClass",
  objectKind(
    {
      driverName: tag(2, str({ immutable: true, immutableForbidden: "updates to driverName are forbidden.", description: "Name of the CSI driver. Immutable." })),
      parameters: tag(3, mapOf(str(), { immutable: true, immutableForbidden: "updates to parameters are forbidden.", description: "Key/value pairs passed to the CSI driver. Immutable." })),
    },
    { required: ["driverName"] },
  ),
);

export function validateVolumeAttributesClass(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const driver = typeof o.driverName === "string" ? o.driverName : "";
  if (driver === "") errs.push(fieldErrors.required("driverName"));
  else errs.push(...isQualifiedName(driver.toLowerCase()).map((msg) => fieldErrors.invalid("driverName", driver, msg)));
  const params = isObj(o.parameters) ? o.parameters : {};
  const keys = Object.keys(params);
  if (keys.length > PARAMETERS_MAX) return [...errs, fieldErrors.tooMany("parameters", keys.length, PARAMETERS_MAX)];
  let size = 0;
  for (const k of keys) {
    if (k === "") errs.push(fieldErrors.invalid("parameters", k, "field can not be empty."));
    const v = params[k];
    size += k.length + (typeof v === "string" ? v.length : 0);
  }
  if (size > PARAMETERS_MAX_BYTES) errs.push(fieldErrors.tooLong("parameters", PARAMETERS_MAX_BYTES));
  if (keys.length === 0) errs.push(fieldErrors.required("parameters", "must contain at least one key/value pair"));
  return errs;
}

export const volumeAttributesClassKind: KindDefinition = {
  group: "storage",
  version: "v1",
  kind: "VolumeAttributesClass",
  plural: "volumeattributesclasses",
  singular: "volumeattributesclass",
  namespaced: false,
  shortNames: ["vac"],
  schema: volumeAttributesClass,
  protobuf: true,
  validateKind: validateVolumeAttributesClass,
  tableColumns: [{ name: "DriverName", type: "string", description: "Name of the CSI driver.", cell: (o) => String(o.driverName ?? "") }, ageColumn],
};
