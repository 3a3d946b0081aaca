/**
 * Bounds on the work of one JSON patch, the platform's limits: at most 10,000
 * operations, at most 3 MiB of growth through `copy` operations, and cooperative
 * slicing so that applying one patch never holds the event loop for more than a
 * few milliseconds at a time. Pure helpers; no I/O besides yielding.
 */

/** The maximum number of operations of one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/** The total size increase all `copy` operations of one JSON patch may cause (JSONPatchMaxCopyBytes). */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

/** How long one slice of patch work may run before it yields to the event loop. */
export const PATCH_SLICE_MS = 2;

/**
 * The size of `value` encoded as JSON, counted only up to `budget`: the walk stops
 * as soon as the count exceeds it (and returns a number > budget), so measuring
 * costs at most O(budget) whatever the value's size.
 */
export function jsonSizeUpTo(value: unknown, budget: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    if (size > budget) return size;
    const v = stack.pop();
    if (v === null || v === undefined) size += 4;
    else if (typeof v === "string") size += v.length + 2;
    else if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") size += String(v).length;
    else if (Array.isArray(v)) {
      size += 2 + Math.max(0, v.length - 1);
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (typeof v === "object") {
      const keys = Object.keys(v);
      size += 2 + Math.max(0, keys.length - 1);
      for (const k of keys) {
        size += k.length + 3;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return size;
}

/**
 * Cooperative time slicing: `maybeYield()` returns to the event loop (setImmediate)
 * once the current slice has run for `sliceMs`, so other requests are served in
 * between the slices of a long patch.
 */
export class WorkSlicer {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = PATCH_SLICE_MS) {}

  async maybeYield(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
