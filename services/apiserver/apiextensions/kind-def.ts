/**
 * The kind definitions of a CRD: one per served version, in the shared form the
 * catalog, handlers, OpenAPI and Table output use (names from
 * `status.acceptedNames`, columns from `additionalPrinterColumns`, subresources,
 * selectable fields, deprecation). Pure; reads only the CRD object.
 */
import { customGroupKey, type PlatformProfile } from "../../../shared/platform/index.ts";
import { age } from "../../../shared/api/table-cells.ts";
import type { KindDefinition, ScaleMapping, SubresourceName, TableColumn } from "../../../shared/schema/types.ts";
import { isObject, type JsonObject } from "../storage/object.ts";
import { parseSimplePath, readPath } from "./json-path.ts";
import { convertRootSchema } from "./schema.ts";

type Json = Record<string, unknown>;

function obj(v: unknown): Json {
  return isObject(v) ? v : {};
}
function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}
function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

export interface CrdVersionView {
  name: string;
  served: boolean;
  storage: boolean;
  raw: Json;
}

export function crdVersions(crd: JsonObject): CrdVersionView[] {
  const versions = obj(crd.spec).versions;
  if (!Array.isArray(versions)) return [];
  return versions.filter(isObject).map((v) => ({ name: str(v.name), served: v.served === true, storage: v.storage === true, raw: v }));
}

/** The names the CRD serves: `status.acceptedNames` once accepted, else `spec.names`. */
export function servedNames(crd: JsonObject): Json {
  const accepted = obj(obj(crd.status).acceptedNames);
  return str(accepted.plural) !== "" ? accepted : obj(obj(crd.spec).names);
}

function printerCell(type: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      return Number.isNaN(Date.parse(value)) ? "<invalid>" : age({ metadata: { creationTimestamp: value } });
    }
    default:
      return typeof value === "string" ? value : JSON.stringify(value);
  }
}

/** Table columns: the printer columns, or the default `Age` column. */
export function printerColumns(version: Json): TableColumn[] {
  const given = Array.isArray(version.additionalPrinterColumns) ? version.additionalPrinterColumns.filter(isObject) : [];
  const cols = given.length > 0 ? given : [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp", description: "CreationTimestamp is a timestamp representing the server time when this object was created." }];
  return cols.map((c) => {
    const type = str(c.type) as TableColumn["type"];
    const steps = parseSimplePath(str(c.jsonPath)) ?? [];
    const col: TableColumn = { name: str(c.name), type, cell: (o) => printerCell(type, readPath(o, steps)) };
    if (str(c.format) !== "") col.format = str(c.format);
    if (str(c.description) !== "") col.description = str(c.description);
    if (typeof c.priority === "number") col.priority = c.priority;
    return col;
  });
}

function scaleOf(version: Json): ScaleMapping | undefined {
  const scale = obj(version.subresources).scale;
  if (!isObject(scale)) return undefined;
  const m: ScaleMapping = { specReplicasPath: str(scale.specReplicasPath), statusReplicasPath: str(scale.statusReplicasPath) };
  if (str(scale.labelSelectorPath) !== "") m.labelSelectorPath = str(scale.labelSelectorPath);
  return m;
}

/** The kind definition of one version of a CRD. */
export function kindDefinition(crd: JsonObject, version: CrdVersionView, profile: PlatformProfile): KindDefinition {
  const spec = obj(crd.spec);
  const names = servedNames(crd);
  const kind = str(names.kind);
  const subresources: SubresourceName[] = [];
  const subs = obj(version.raw.subresources);
  if (isObject(subs.status)) subresources.push("status");
  const scale = scaleOf(version.raw);
  if (scale) subresources.push("scale");
  const def: KindDefinition = {
    group: customGroupKey(str(spec.group)),
    version: version.name,
    kind,
    plural: str(names.plural),
    singular: str(names.singular) || kind.toLowerCase(),
    namespaced: spec.scope !== "Cluster",
    schema: convertRootSchema(obj(version.raw.schema).openAPIV3Schema, profile.ext),
    tableColumns: printerColumns(version.raw),
    custom: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
  };
  const shortNames = strs(names.shortNames);
  if (shortNames.length > 0) def.shortNames = shortNames;
  const categories = strs(names.categories);
  if (categories.length > 0) def.categories = categories;
  if (subresources.length > 0) def.subresources = subresources;
  if (scale) def.scale = scale;
  const selectable = Array.isArray(version.raw.selectableFields) ? version.raw.selectableFields.filter(isObject).map((f) => str(f.jsonPath).replace(/^\./, "")) : [];
  if (selectable.length > 0) def.selectableFields = selectable;
  if (version.raw.deprecated === true) {
    def.deprecated = {};
    def.deprecationWarning = str(version.raw.deprecationWarning) || `${profile.apiVersion(def.group, def.version)} ${kind} is deprecated`;
  }
  return def;
}
