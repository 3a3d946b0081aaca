/**
 * Output as the platform's CLI prints it: server-side Tables (columns of priority 0, all
 * columns with `wide`, upper-case headers, a NAMESPACE column for all-namespace lists,
 * cells aligned like Go's tabwriter with padding 3), YAML (sorted
 * keys, unindented sequences), JSON (4-space indent), `name` (`kind.group/name`) and
 * JSONPath templates. Lists print as a `List` of items with their apiVersion and kind.
 */
import { stringify } from "yaml";
import { checkJsonPath, renderJsonPath } from "./jsonpath.ts";
import { UsageError } from "./command.ts";

export interface TableColumn {
  name: string;
  type?: string;
  priority?: number;
}
export interface TableRow {
  cells: unknown[];
  object?: { metadata?: { name?: string; namespace?: string } };
}
export interface Table {
  kind?: string;
  columnDefinitions?: TableColumn[];
  rows?: TableRow[];
  metadata?: { resourceVersion?: string };
}

export type OutputFormat = { kind: "table"; wide: boolean } | { kind: "yaml" } | { kind: "json" } | { kind: "name" } | { kind: "jsonpath"; template: string };

const FORMATS = "json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file, custom-columns, custom-columns-file, wide";

/** Parses `-o`; an unsupported format is a usage error naming the allowed ones. */
export function parseOutput(o: string | undefined): OutputFormat {
  if (o === undefined || o === "") return { kind: "table", wide: false };
  if (o === "wide") return { kind: "table", wide: true };
  if (o === "yaml" || o === "json" || o === "name") return { kind: o };
  const m = /^jsonpath=(.*)$/s.exec(o);
  if (m) {
    checkJsonPath(m[1]);
    return { kind: "jsonpath", template: m[1] };
  }
  throw new UsageError(`unable to match a printer suitable for the output format "${o}", allowed formats are: ${FORMATS}`);
}

export function toYaml(v: unknown): string {
  return stringify(v, { sortMapEntries: true, indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
}

export function toJson(v: unknown): string {
  return `${JSON.stringify(v, null, 4)}\n`;
}

/** Cells laid out like Go's tabwriter with padding 3: the last column is not padded. */
export function alignColumns(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] + 3)))
        .join("")
        .trimEnd(),
    )
    .map((l) => `${l}\n`)
    .join("");
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return "<none>";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The header and rows of a Table, optionally with a NAMESPACE column and kind-prefixed names. */
export function tableRows(table: Table, opts: { wide: boolean; withNamespace: boolean; namePrefix?: string; headers?: boolean }): string[][] {
  const cols = (table.columnDefinitions ?? []).map((c, i) => ({ c, i })).filter(({ c }) => opts.wide || (c.priority ?? 0) === 0);
  const out: string[][] = [];
  if (opts.headers !== false) {
    const header = cols.map(({ c }) => c.name.toUpperCase());
    out.push(opts.withNamespace ? ["NAMESPACE", ...header] : header);
  }
  for (const row of table.rows ?? []) {
    const cells = cols.map(({ c, i }) => {
      const text = cellText(row.cells[i]);
      return opts.namePrefix && c.name.toLowerCase() === "name" ? `${opts.namePrefix}/${text}` : text;
    });
    out.push(opts.withNamespace ? [row.object?.metadata?.namespace ?? "", ...cells] : cells);
  }
  return out;
}

/** An object without `metadata.managedFields` (left out of yaml and json unless asked for). */
export function withoutManagedFields(o: Record<string, unknown>): Record<string, unknown> {
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (!meta || !("managedFields" in meta)) return o;
  const rest = { ...meta };
  delete rest.managedFields;
  return { ...o, metadata: rest };
}

/** Prints objects (one, or a list's items) in a non-table format; managedFields only with `showManagedFields`. */
export function formatObjects(
  format: Exclude<OutputFormat, { kind: "table" }>,
  objects: Array<Record<string, unknown>>,
  single: boolean,
  nameOf: (o: Record<string, unknown>) => string,
  showManagedFields = false,
): string {
  const shown = showManagedFields ? objects : objects.map(withoutManagedFields);
  const doc = single ? shown[0] : { apiVersion: "v1", items: shown, kind: "List", metadata: { resourceVersion: "" } };
  switch (format.kind) {
    case "yaml":
      return toYaml(doc);
    case "json":
      return toJson(doc);
    case "name":
      return objects.map((o) => `${nameOf(o)}\n`).join("");
    case "jsonpath":
      return renderJsonPath(format.template, doc);
  }
}
