/** Stand-in for the `k6` module inside a VU of the adapter: check, group, sleep, fail. */
import { blockFor, record } from "./runtime.ts";

type Checker<T> = (value: T) => boolean;

/** Runs each named check on `value`, records one `checks` sample each, true when all passed. */
export function check<T>(value: T, sets: Record<string, Checker<T>>, tags: Record<string, string> = {}): boolean {
  let all = true;
  for (const [name, fn] of Object.entries(sets)) {
    let ok: boolean;
    try {
      ok = Boolean(fn(value));
    } catch {
      ok = false;
    }
    record("checks", ok ? 1 : 0, { ...tags, check: name });
    all &&= ok;
  }
  return all;
}

export function group<T>(_name: string, fn: () => T): T {
  return fn();
}

export function sleep(seconds: number): void {
  blockFor(seconds);
}

export function fail(message?: string): never {
  throw new Error(message ?? "fail");
}

export default { check, group, sleep, fail };
