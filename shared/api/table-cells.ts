/**
 * Cell helpers shared by the table columns of built-in kinds (`kubectl get`
 * output). Pure functions over plain JSON objects; no kind knowledge here
 * beyond the standard metadata fields.
 */
import type { TableColumn } from "../schema/types.ts";

type Obj = Record<string, unknown>;

/** Reads a dotted path (`status.phase`) from a plain object; undefined when any step is missing. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[part];
  }
  return cur;
}

/** An object-valued field, or an empty object. */
export function objAt(obj: unknown, path: string): Obj {
  const v = getPath(obj, path);
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}

/** An array-valued field, or an empty array. */
export function listAt(obj: unknown, path: string): unknown[] {
  const v = getPath(obj, path);
  return Array.isArray(v) ? v : [];
}

/** A string-valued field, or "". */
export function strAt(obj: unknown, path: string): string {
  const v = getPath(obj, path);
  return typeof v === "string" ? v : "";
}

/** A number-valued field, or 0. */
export function numAt(obj: unknown, path: string): number {
  const v = getPath(obj, path);
  return typeof v === "number" ? v : 0;
}

/**
 * Human duration as the platform's CLI prints ages: `45s`, `5m30s`, `5m`,
 * `3h20m`, `10h`, `3d2h`, `20d`, `2y30d`, `9y`. Negative durations within
 * two seconds read as `0s` (clock skew); more negative ones as `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24);
    const y = Math.trunc(days / 365);
    const d = days % 365;
    return d === 0 ? `${y}y` : `${y}y${d}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Time since an RFC 3339 timestamp as a human duration; `<unknown>` when absent or unparsable. */
export function since(timestamp: unknown, now: number = Date.now()): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}

/** Age of an object from `metadata.creationTimestamp`. */
export function age(obj: Obj, now: number = Date.now()): string {
  return since(getPath(obj, "metadata.creationTimestamp"), now);
}

/** The standard `Age` column. */
export const ageColumn: TableColumn = {
  name: "Age",
  type: "string",
  description: "Time since the object was created.",
  cell: (obj) => age(obj),
};

/** Label selector map (`a=b,c=d`) as the CLI prints it; `<none>` when empty. */
export function formatSelectorMap(sel: unknown): string {
  if (typeof sel !== "object" || sel === null || Array.isArray(sel)) return "<none>";
  const parts = Object.entries(sel as Obj)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length === 0 ? "<none>" : parts.join(",");
}

/** A `LabelSelector` (matchLabels + matchExpressions) as the CLI prints it; `<none>` when empty. */
export function formatLabelSelector(sel: unknown): string {
  if (typeof sel !== "object" || sel === null || Array.isArray(sel)) return "<none>";
  const s = sel as Obj;
  const parts: string[] = [];
  const ml = formatSelectorMap(s.matchLabels);
  if (ml !== "<none>") parts.push(ml);
  for (const e of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    const r = e as Obj;
    const key = String(r.key ?? "");
    const values = Array.isArray(r.values) ? (r.values as unknown[]).map(String).sort() : [];
    switch (r.operator) {
      case "In":
        parts.push(`${key} in (${values.join(",")})`);
        break;
      case "NotIn":
        parts.push(`${key} notin (${values.join(",")})`);
        break;
      case "Exists":
        parts.push(key);
        break;
      case "DoesNotExist":
        parts.push(`!${key}`);
        break;
    }
  }
  return parts.length === 0 ? "<none>" : parts.join(",");
}

/** Comma-joined container names of a pod spec. */
export function containerNames(podSpec: unknown): string {
  return listAt(podSpec, "containers")
    .map((c) => strAt(c, "name"))
    .join(",");
}

/** Comma-joined container images of a pod spec. */
export function containerImages(podSpec: unknown): string {
  return listAt(podSpec, "containers")
    .map((c) => strAt(c, "image"))
    .join(",");
}

/** `<none>` for an empty cell value. */
export function orNone(s: string): string {
  return s === "" ? "<none>" : s;
}
