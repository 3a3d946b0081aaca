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
