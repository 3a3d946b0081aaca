/**
 * Test-only preload (`node --import tsx --import <this file>`) that lets the chaos
 * suite jump one replica's wall clock: `Date.now()` and `new Date()` answer the real
 * time plus the offset (milliseconds) written in the file named by the environment
 * variable CHAOS_CLOCK_OFFSET_FILE, read again every 100 ms. Monotonic clocks
 * (performance.now, timers) and OpenSSL's certificate checks keep the real time:
 * a process cannot be given another system time without privileges.
 */
import { readFileSync } from "node:fs";

const file = process.env.CHAOS_CLOCK_OFFSET_FILE;

if (file !== undefined && file !== "") {
  const RealDate = Date;
  const realNow = Date.now.bind(Date);
  let offsetMs = 0;
  const read = () => {
    try {
      const n = Number(readFileSync(file, "utf8").trim());
      offsetMs = Number.isFinite(n) ? n : 0;
    } catch {
      offsetMs = 0;
    }
  };
  read();
  setInterval(read, 100).unref();

  // A function, not a subclass: `new Date(y, m, d, ...)` keeps every argument form,
  // and instances stay real Dates (the prototype is shared).
  const ShiftedDate = function (this: unknown, ...args: unknown[]): Date | string {
    const now = realNow() + offsetMs;
    if (new.target === undefined) return new RealDate(now).toString();
    return args.length === 0 ? new RealDate(now) : (Reflect.construct(RealDate, args) as Date);
  } as unknown as DateConstructor;
  Object.defineProperties(ShiftedDate, {
    prototype: { value: RealDate.prototype },
    now: { value: () => realNow() + offsetMs },
    parse: { value: RealDate.parse.bind(RealDate) },
    UTC: { value: RealDate.UTC.bind(RealDate) },
  });
  globalThis.Date = ShiftedDate;
}
