/**
 * Server-side table rendering (`Accept: application/json;as=Table;g=<meta group>;v=v1`),
 * in the platform's `Table` shape so that its CLI prints it unmodified:
 *
 *   { kind: "Table", apiVersion: "<meta group>/v1",
 *     metadata: { resourceVersion?, continue?, remainingItemCount? },
 *     columnDefinitions: [{ name, type, format, description, priority }],   // every key always present
 *     rows: [{ cells: [...], object }] }
 *
 * Columns: `Name` (type string, format `name`) first, then the kind's
 * `tableColumns`; a kind without columns gets `Name` and `Created At` (type
 * `date`, the creation time in RFC 3339 UTC). Priority 1 columns are the wide ones.
 * `object` per includeObject: `Metadata` (the default) a PartialObjectMetadata
 * (`<meta group>/v1`) with the object's metadata, `Object` the whole object,
 * `None` null (the platform's empty RawExtension encodes as null).
 */
import { age, ageColumn, getPath } from "../api/table-cells.ts";
import type { PlatformProfile } from "../platform/index.ts";
import type { KindDefinition, TableColumn } from "../schema/types.ts";
import { isObject } from "../schema/values.ts";

type Obj = Record<string, unknown>;

export type IncludeObject = "None" | "Metadata" | "Object";

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object: Obj | null;
}

export interface Table {
  kind: "Table";
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

export interface TableOptions {
  profile: PlatformProfile;
  /** Default `Metadata`, as the platform's. */
  includeObject?: IncludeObject;
  /** Clock for age columns (ms since the epoch or a Date); default now. */
  now?: number | Date;
  /** Leave out the column definitions (later events of a table watch). */
  noHeaders?: boolean;
  /** List metadata; defaults to that of a list input, or the object's resourceVersion for one object. */
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

const NAME_DESCRIPTION =
  "Name must be unique within a namespace. It is required when creating resources, although some resources may let a client ask for a generated name. Name is mainly meant for creation idempotence and configuration definition. It cannot be updated.";
const CREATED_DESCRIPTION =
  "CreationTimestamp is the server time when this object was created, in RFC 3339 form and UTC. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set it.";

const nameColumn: TableColumnDefinition = { name: "Name", type: "string", format: "name", description: NAME_DESCRIPTION, priority: 0 };
const createdColumn: TableColumnDefinition = { name: "Created At", type: "date", format: "", description: CREATED_DESCRIPTION, priority: 0 };

/** The column definitions of a kind, Name first. */
export function tableColumnDefinitions(def: KindDefinition): TableColumnDefinition[] {
  const cols = def.tableColumns ?? [];
  if (cols.length === 0) return [nameColumn, createdColumn];
  return [nameColumn, ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? "", description: c.description ?? "", priority: c.priority ?? 0 }))];
}

/** The cells of one object's row. */
export function tableCells(def: KindDefinition, obj: Obj, now: number): unknown[] {
  const name = getPath(obj, "metadata.name");
  const cols = def.tableColumns ?? [];
  if (cols.length === 0) return [typeof name === "string" ? name : "", createdAt(obj)];
  return [typeof name === "string" ? name : "", ...cols.map((c) => cell(c, obj, now))];
}

function cell(c: TableColumn, obj: Obj, now: number): unknown {
  // The standard Age column reads the clock; render it with the caller's.
  if (c === ageColumn || c.cell === ageColumn.cell) return age(obj, now);
  const v = c.cell ? c.cell(obj) : c.path !== undefined ? getPath(obj, c.path) : undefined;
  return v === undefined ? null : v;
}

function createdAt(obj: Obj): string {
  const ts = getPath(obj, "metadata.creationTimestamp");
  const ms = typeof ts === "string" ? Date.parse(ts) : NaN;
  return Number.isNaN(ms) ? "0001-01-01T00:00:00Z" : `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function rowObject(def: KindDefinition, obj: Obj, opts: TableOptions): Obj | null {
  switch (opts.includeObject ?? "Metadata") {
    case "None":
      return null;
    case "Object":
      return { apiVersion: opts.profile.apiVersion(def.group, def.version), kind: def.kind, ...obj };
    case "Metadata":
      return { kind: "PartialObjectMetadata", apiVersion: `${opts.profile.metaGroup}/v1`, metadata: isObject(obj.metadata) ? obj.metadata : {} };
  }
}

/**
 * Renders objects of a kind as a Table: one object, an array of objects, or a
 * list (`{ metadata, items }`, whose metadata becomes the table's).
 */
export function toTable(def: KindDefinition, input: Obj | readonly Obj[], opts: TableOptions): Table {
  const now = opts.now === undefined ? Date.now() : typeof opts.now === "number" ? opts.now : opts.now.getTime();
  let objects: readonly Obj[];
  const metadata: Table["metadata"] = {};
  if (Array.isArray(input)) objects = input;
  else if (Array.isArray((input as Obj).items)) {
    const list = input as Obj;
    objects = (list.items as unknown[]).filter(isObject);
    const lm = isObject(list.metadata) ? list.metadata : {};
    if (typeof lm.resourceVersion === "string" && lm.resourceVersion !== "") metadata.resourceVersion = lm.resourceVersion;
    if (typeof lm.continue === "string" && lm.continue !== "") metadata.continue = lm.continue;
    if (typeof lm.remainingItemCount === "number") metadata.remainingItemCount = lm.remainingItemCount;
  } else {
    const one = input as Obj;
    objects = [one];
    const rv = getPath(one, "metadata.resourceVersion");
    if (typeof rv === "string" && rv !== "") metadata.resourceVersion = rv;
  }
  if (opts.resourceVersion !== undefined) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue !== undefined) metadata.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) metadata.remainingItemCount = opts.remainingItemCount;
  return {
    kind: "Table",
    apiVersion: `${opts.profile.metaGroup}/v1`,
    metadata,
    columnDefinitions: opts.noHeaders ? [] : tableColumnDefinitions(def),
    rows: (def.tableRowOrder && objects.length > 1 ? [...objects].sort(def.tableRowOrder) : objects).map((o) => tableRow(def, o, opts, now)),
  };
}

/** One row of `toTable`'s rows for an object, with the clock `now` (ms) of the whole table. */
export function tableRow(def: KindDefinition, obj: Obj, opts: TableOptions, now: number): TableRow {
  return { cells: tableCells(def, obj, now), object: rowObject(def, obj, opts) };
}

/**
 * A watch event in table form: the event's object becomes a one-row Table
 * (a BOOKMARK a row-less Table carrying its resourceVersion); an ERROR event's
 * Status passes through.
 */
export function watchEventTable(def: KindDefinition, event: { type: string; object: Obj }, opts: TableOptions): { type: string; object: Obj } {
  if (event.type === "ERROR" || event.object.kind === "Status") return event;
  if (event.type === "BOOKMARK") {
    const rv = getPath(event.object, "metadata.resourceVersion");
    const t = toTable(def, [], { ...opts, resourceVersion: typeof rv === "string" ? rv : undefined });
    return { type: event.type, object: { ...t } };
  }
  return { type: event.type, object: { ...toTable(def, event.object, opts) } };
}
