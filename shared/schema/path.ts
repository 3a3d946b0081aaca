/**
 * Field paths as the platform prints them: `spec.containers[0].ports[1].containerPort`
 * for struct fields and list indexes, `metadata.labels[app.x/y]` for map keys.
 * The empty string is the root.
 */

/** `parent.name` (or `name` at the root). */
export function childPath(parent: string, name: string): string {
  return parent === "" ? name : `${parent}.${name}`;
}

/** `parent[i]`. */
export function indexPath(parent: string, i: number): string {
  return `${parent}[${i}]`;
}

/** `parent[key]`: a map key, printed without quotes. */
export function keyPath(parent: string, key: string): string {
  return `${parent}[${key}]`;
}

/** A plain JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Own-property lookup that ignores the prototype chain (keys like `__proto__` or `constructor`). */
export function hasOwn(o: Record<string, unknown>, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/**
 * Sets a property as an own data property, even for `__proto__`, so that
 * copies never change an object's prototype.
 */
export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}
