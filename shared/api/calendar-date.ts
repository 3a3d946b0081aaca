/**
 * Calendar dates in UTC as the platform writes them into labels and ConfigMaps
 * (`YYYY-MM-DD`, Go's `2006-01-02` layout): the legacy service account token's
 * last-used and invalid-since labels, the tracking ConfigMap's `since`.
 *
 * Contract: `utcDate` always yields a string that `parseUtcDate` accepts, and such
 * strings compare in time order as plain strings (the platform compares them so).
 * `parseUtcDate` accepts exactly what Go's `time.Parse("2006-01-02", s)` accepts: four
 * year digits, two month digits (01–12), two day digits valid for that month (the
 * schema's `date` format, shared/schema/formats.ts `isDate`).
 */
import { isDate } from "../schema/formats.ts";

export const DAY_MS = 86_400_000;

/** The UTC calendar date of a moment. */
export function utcDate(at: Date | number): string {
  const d = typeof at === "number" ? new Date(at) : at;
  const y = String(d.getUTCFullYear()).padStart(4, "0");
  const m = String(d.getUTCMonth() + 1).padStart(2, "0");
  const day = String(d.getUTCDate()).padStart(2, "0");
  return `${y}-${m}-${day}`;
}

/** 00:00 UTC of a date (ms since the epoch), or undefined when `text` is not a date. */
export function parseUtcDate(text: string | undefined): number | undefined {
  if (text === undefined || !isDate(text)) return undefined;
  const d = new Date(0);
  // Unlike Date.UTC, keeps years 0–99 as they are.
  d.setUTCFullYear(Number(text.slice(0, 4)), Number(text.slice(5, 7)) - 1, Number(text.slice(8, 10)));
  return d.getTime();
}
