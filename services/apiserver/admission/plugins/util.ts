/**
 * Small helpers shared by the built-in plugins: the admission Forbidden error
 * (`admission.NewForbidden`), typed reads of plain objects, and the checks of
 * which resource a request is about.
 */
import { forbiddenWithReason, type StatusError } from "../../../../shared/api/status.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { Attributes, ObjectAccess, ObjectRef } from "../interfaces.ts";

/**
 * 403 with the request's resource and name: `pods "x" is forbidden: <err>`. The
 * name is the request's, else the object's name, else its generateName, else `Unknown`.
 */
export function admissionForbidden(a: Pick<Attributes, "name" | "object" | "resource">, err: string): StatusError {
  let name = a.name;
  if (!name) {
    const m = isObject(a.object?.metadata) ? (a.object.metadata as JsonObject) : {};
    name = str(m.name) || str(m.generateName) || "Unknown";
  }
  return forbiddenWithReason(a.resource.resource, name, err, a.resource.group);
}

/** True for a request on `group`/`resource` with one of the given subresources ("" is the main resource). */
export function isResource(a: Pick<Attributes, "resource" | "subresource">, group: string, resource: string, subresources: readonly string[] = [""]): boolean {
  return a.resource.group === group && a.resource.resource === resource && subresources.includes(a.subresource);
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

export function obj(v: unknown): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The child object at `key`, created when absent or not an object. */
export function child(o: JsonObject, key: string): JsonObject {
  const v = o[key];
  if (isObject(v)) return v;
  const made: JsonObject = {};
  o[key] = made;
  return made;
}

/** The array at `key`, created when absent. */
export function childList(o: JsonObject, key: string): unknown[] {
  const v = o[key];
  if (Array.isArray(v)) return v;
  const made: unknown[] = [];
  o[key] = made;
  return made;
}

export function labelsOf(o: JsonObject | undefined): Record<string, string> {
  const m = obj(o?.metadata);
  const l = obj(m?.labels);
  return (l ?? {}) as Record<string, string>;
}

export function annotationsOf(o: JsonObject | undefined): Record<string, string> {
  const m = obj(o?.metadata);
  const l = obj(m?.annotations);
  return (l ?? {}) as Record<string, string>;
}

/** Every container list of a pod spec with its field name. */
export const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

export function containersOf(spec: JsonObject, lists: readonly string[] = CONTAINER_LISTS): JsonObject[] {
  const out: JsonObject[] = [];
  for (const l of lists) for (const c of arr(spec[l])) if (isObject(c)) out.push(c);
  return out;
}

/** Lister-then-live read (the platform's plugins): the watch cache first, the store when absent there. */
export async function getFresh(objects: ObjectAccess, ref: ObjectRef): Promise<JsonObject | undefined> {
  return (await objects.get(ref, { cached: true })) ?? objects.get(ref);
}

/** Like getFresh for lists: the store is asked only when the cached list has nothing `wanted`. */
export async function listFresh(objects: ObjectAccess, group: string, resource: string, namespace: string | undefined, wanted: (items: JsonObject[]) => boolean): Promise<JsonObject[]> {
  const cached = await objects.list(group, resource, namespace, { cached: true });
  return wanted(cached) ? cached : objects.list(group, resource, namespace);
}
