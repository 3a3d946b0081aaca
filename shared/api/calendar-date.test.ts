/** UTC calendar dates as table cases: formatting, Go's `2006-01-02` parsing, order as strings. */
import { describe, expect, it } from "vitest";
import { isDate } from "../schema/formats.ts";
import { DAY_MS, parseUtcDate, utcDate } from "./calendar-date.ts";

describe("utcDate", () => {
  const table: Array<[string, string]> = [
    ["2026-11-26T00:00:00.000Z", "2026-11-26"],
    ["2026-11-26T23:59:59.999Z", "2026-11-26"],
    ["2024-02-29T12:00:00Z", "2024-02-29"],
    ["0099-01-05T00:00:00Z", "0099-01-05"],
  ];
  for (const [at, want] of table) it(at, () => expect(utcDate(new Date(at))).toBe(want));

  it("takes milliseconds too, and the day after a late hour is the next date", () => {
    const late = Date.parse("2026-12-31T23:30:00Z");
    expect(utcDate(late)).toBe("2026-12-31");
    expect(utcDate(late + DAY_MS)).toBe("2027-01-01");
  });
});

describe("parseUtcDate", () => {
  const table: Array<[string | undefined, string | undefined]> = [
    ["2026-11-26", "2026-11-26T00:00:00.000Z"],
    ["2024-02-29", "2024-02-29T00:00:00.000Z"],
    ["2000-02-29", "2000-02-29T00:00:00.000Z"],
    ["0000-02-29", "0000-02-29T00:00:00.000Z"], // year 0 is a leap year (proleptic Gregorian), as in Go
    ["1900-02-29", undefined],
    ["2025-02-29", undefined],
    ["2026-04-31", undefined],
    ["2026-13-01", undefined],
    ["2026-00-10", undefined],
    ["2026-01-00", undefined],
    ["2026-1-05", undefined],
    ["26-01-05", undefined],
    ["2026-01-05 ", undefined],
    ["2026-01-05T00:00:00Z", undefined],
    ["yesterday", undefined],
    ["", undefined],
    [undefined, undefined],
  ];
  for (const [text, want] of table) {
    it(JSON.stringify(text), () => {
      const at = parseUtcDate(text);
      expect(at === undefined ? undefined : new Date(at).toISOString()).toBe(want);
    });
  }

  it("round-trips utcDate and orders dates as strings", () => {
    const days = ["2025-12-31", "2026-01-01", "2026-01-10", "2026-10-01"];
    for (const d of days) expect(utcDate(parseUtcDate(d) as number)).toBe(d);
    expect([...days].sort()).toEqual(days);
  });

  it("accepts exactly the schema's date format, as that day's 00:00 UTC", () => {
    const two = (n: number) => String(n).padStart(2, "0");
    for (const year of ["0000", "0099", "1900", "2000", "2024", "2025"]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const text = `${year}-${two(month)}-${two(day)}`;
          const at = parseUtcDate(text);
          expect(at !== undefined, text).toBe(isDate(text));
          if (at !== undefined) expect(utcDate(at)).toBe(text);
        }
      }
    }
  });
});
