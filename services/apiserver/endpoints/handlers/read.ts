/** GET of one object and list of a collection. */
import type { JsonObject } from "../../storage/object.ts";
import { bodyContentType, bodyResponse, encodeBody, respond } from "../encode.ts";
import { encodedOnce, objectVariant } from "../encoded-cache.ts";
import { CachedStorage } from "../../storage/cached-storage.ts";
import { renderObject } from "../render.ts";
import { listResponse, type ListMeta } from "../list-body.ts";
import { parseListQuery } from "../list-options.ts";
import { buildSelection } from "../predicate.ts";
import type { RequestScope } from "../scope.ts";
import type { ListRequest } from "../../registry/registry.ts";
import { collectionPrefix } from "../../registry/resource.ts";
import type { ListResult } from "../../storage/interface.ts";

export function withTypeMeta(obj: JsonObject, s: RequestScope): JsonObject {
  return { apiVersion: s.resource.apiVersion, kind: s.resource.kind, ...obj };
}

/** Not async: a GET from the watch cache returns getEncodedOnce's own promise (no adopting promise of its own). */
export function handleGet(s: RequestScope): Promise<Response> {
  const resourceVersion = s.query.get("resourceVersion") ?? undefined;
  const storage = s.registry.storage;
  if (!s.target && storage instanceof CachedStorage) return getEncodedOnce(s, storage, resourceVersion);
  return getRendered(s, resourceVersion);
}

/** GET through the registry: a copy of the object, rendered for the negotiated target (Table, metadata). */
async function getRendered(s: RequestScope, resourceVersion: string | undefined): Promise<Response> {
  const obj = await s.registry.get(s.namespace, s.name as string, resourceVersion);
  return respond(s, renderObject(s, withTypeMeta(obj, s)), 200, "object");
}

/**
 * GET of the watch cache's object itself (no copy), its bytes encoded once per object
 * version and variant and reused (encoded-cache.ts): the same read semantics and errors
 * as `Registry.get`, whose storage call and error mapping this mirrors.
 */
async function getEncodedOnce(s: RequestScope, storage: CachedStorage, resourceVersion: string | undefined): Promise<Response> {
  const name = s.name as string;
  let obj: Readonly<JsonObject>;
  try {
    // A converted kind's object in the request's version, converted once per stored object.
    obj = await s.registry.toRequestShared(await storage.getShared(s.registry.key(s.namespace, name), { resourceVersion }));
  } catch (err) {
    s.registry.fail(err, name);
  }
  const bytes = encodedOnce(obj, objectVariant(s), () => {
    const body = encodeBody(s, withTypeMeta(obj, s), "object");
    return typeof body === "string" ? Buffer.from(body, "utf8") : body;
  });
  return bodyResponse(s, bytes, bodyContentType(s, "object"), 200);
}

/** A list, streamed item by item (list-body.ts); from the watch cache without copies when served there. */
export async function handleList(s: RequestScope): Promise<Response> {
  const q = parseListQuery(s.query, false, s.profile.metaGroup);
  const selection = buildSelection(s.resource.def, q.labelSelector, q.fieldSelector);
  const request = {
    namespace: s.namespace,
    resourceVersion: q.resourceVersion,
    resourceVersionMatch: q.resourceVersionMatch,
    limit: q.limit,
    continueToken: q.continueToken,
    predicate: selection.predicate,
    hasSelector: selection.hasSelector,
  };
  const storage = s.registry.storage;
  const res = storage instanceof CachedStorage ? await listShared(s, storage, request) : await s.registry.list(request);
  const metadata: ListMeta = { resourceVersion: res.resourceVersion };
  if (res.continueToken) metadata.continue = res.continueToken;
  if (res.remainingItemCount !== undefined) metadata.remainingItemCount = res.remainingItemCount;
  return listResponse(s, metadata, res.items);
}

/** `Registry.list` over the cache's own objects (converted once per object for a converted kind), mirroring its storage call and error mapping. */
async function listShared(s: RequestScope, storage: CachedStorage, req: ListRequest): Promise<{ items: ReadonlyArray<Readonly<JsonObject>>; resourceVersion: string; continueToken?: string; remainingItemCount?: number }> {
  let res: ListResult;
  try {
    const { namespace, ...options } = req;
    res = await storage.listShared(collectionPrefix(s.registry.resource, namespace), { ...options, predicate: s.registry.storedPredicate(options.predicate) });
  } catch (err) {
    s.registry.fail(err, "");
  }
  try {
    return { ...res, items: await s.registry.toRequestSharedMany(res.items) };
  } catch (err) {
    s.registry.fail(err, "");
  }
}
