/**
 * The narrow object client the controllers and tools program against: get, list,
 * watch, create, update, patch and delete for any group/version/resource. Objects are
 * plain JSON; failures are `StatusError`s (shared/api/status.ts) carrying the server's
 * Status, or a synthesized one (code 0 `InternalError` style) for transport failures.
 * `ObjectMeta` and `OwnerReference` are the generated meta/v1 types (typed/types/meta-v1.ts).
 */
import type { Status } from "../api/status.ts";
import type { MetaV1ObjectMeta, MetaV1OwnerReference } from "./typed/types/meta-v1.ts";

/** A resource in one group version; `group` is "" for the core group. */
export interface ResourceRef {
  group: string;
  version: string;
  /** Plural resource name, e.g. `configmaps`. */
  resource: string;
}

/** An owner reference, as the generated meta/v1 types declare it. */
export type OwnerReference = MetaV1OwnerReference;

/**
 * Object metadata: the generated meta/v1 ObjectMeta (one definition on the client side),
 * open to fields a newer server may send.
 */
export interface ObjectMeta extends MetaV1ObjectMeta {
  [field: string]: unknown;
}

export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ObjectList {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: ApiObject[];
}

export interface SelectorOptions {
  /** Namespace scope; omit for cluster-scoped resources or an all-namespaces list/watch. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface ListOptions extends SelectorOptions {
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan" | "Exact";
  limit?: number;
  continue?: string;
}

export interface WatchOptions extends SelectorOptions {
  /** Start after this version; omitted: "start at most recent" (no initial events). */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export type WatchEvent =
  | { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: ApiObject }
  | { type: "ERROR"; object: Status };

/** A running watch: iterate its events; `stop()` ends the iteration and frees the connection. */
export interface WatchStream extends AsyncIterable<WatchEvent> {
  stop(): void;
}

export interface WriteOptions {
  namespace?: string;
  subresource?: string;
  dryRun?: boolean;
  fieldManager?: string;
}

export interface DeleteOptions {
  namespace?: string;
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/** `merge` = JSON merge patch, `json` = JSON patch, `strategic`, `apply` = server-side apply (needs fieldManager). */
export type PatchType = "merge" | "json" | "strategic" | "apply";

export interface ObjectClient {
  /** `resourceVersion` "0": any state the server has (its watch cache), as the platform's clients read it. */
  get(res: ResourceRef, name: string, opts?: { namespace?: string; subresource?: string; resourceVersion?: string }): Promise<ApiObject>;
  list(res: ResourceRef, opts?: ListOptions): Promise<ObjectList>;
  watch(res: ResourceRef, opts?: WatchOptions): WatchStream;
  create(res: ResourceRef, obj: ApiObject, opts?: WriteOptions): Promise<ApiObject>;
  /** PUT of `obj` (its metadata.name names it); `subresource` e.g. `status`, `finalize`. */
  update(res: ResourceRef, obj: ApiObject, opts?: WriteOptions): Promise<ApiObject>;
  patch(res: ResourceRef, name: string, type: PatchType, patch: unknown, opts?: WriteOptions): Promise<ApiObject>;
  /** Answers the object (now Terminating) or the Status of a completed deletion. */
  delete(res: ResourceRef, name: string, opts?: DeleteOptions): Promise<ApiObject | Status>;
  /**
   * `delete` whose answer is not decoded (the platform's clients' Delete returns only an
   * error): for callers that need only the outcome. A failure throws its Status as
   * `delete` does. Optional: callers fall back to `delete` (see `deleteDiscardingAnswer`).
   */
  deleteOnly?(res: ResourceRef, name: string, opts?: DeleteOptions): Promise<void>;
  deleteCollection(res: ResourceRef, opts?: DeleteOptions & SelectorOptions): Promise<ObjectList | Status>;
}

/** Reads non-resource paths such as `/api` and `/apis` (discovery, version). */
export interface PathGetter {
  getPath(path: string): Promise<unknown>;
}

/** `v1` or `apps/v1`. */
export function apiVersionOf(res: Pick<ResourceRef, "group" | "version">): string {
  return res.group ? `${res.group}/${res.version}` : res.version;
}

/** The path of a resource collection or object: `/api/v1/namespaces/ns/pods/name/status`. */
export function resourcePath(res: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  let p = res.group ? `/apis/${res.group}/${res.version}` : `/api/${res.version}`;
  if (namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${res.resource}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

/** Deletes through `deleteOnly` where the client has it (no answer decoded), else `delete`. */
export async function deleteDiscardingAnswer(client: ObjectClient, res: ResourceRef, name: string, opts?: DeleteOptions): Promise<void> {
  if (client.deleteOnly) await client.deleteOnly(res, name, opts);
  else await client.delete(res, name, opts);
}
