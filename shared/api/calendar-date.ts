/**
 * Calendar dates in UTC as the platform writes them into labels and ConfigMaps
 * (`YYYY-MM-DD`, Go's `2006-01-02` layout): the legacy service account token's
 * last-used and invalid-since labels, the tracking ConfigMap's `since`.
 *
 * Contract: `utcDate` always yields a string that `parseUtcDate` accepts, and such
 * strings compare in time order as plain strings (the platform compares them so).
 * `parseUtcDate` accepts exactly what Go's `time.Parse("2006-01-02", s)` accepts: four
 * year digits, two month digits (01–12), two day digits valid for that month.
 */

export const DAY_MS = 86_400_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

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
  const m = DATE.exec(text ?? "");
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, keeps years 0–99 as they are
  // A day past the month's end rolls over into the next month: not a date.
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  return d.getTime();
}
