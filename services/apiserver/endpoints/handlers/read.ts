/** GET of one object and list of a collection. */
import type { JsonObject } from "../../storage/object.ts";
import { bodyContentType, bodyResponse, encodeBody, respond } from "../encode.ts";
import { encodedOnce } from "../encoded-cache.ts";
import { CachedStorage } from "../../storage/cached-storage.ts";
import { renderList, renderObject } from "../render.ts";
import { parseListQuery } from "../list-options.ts";
import { buildSelection } from "../predicate.ts";
import type { RequestScope } from "../scope.ts";

export function withTypeMeta(obj: JsonObject, s: RequestScope): JsonObject {
  return { apiVersion: s.resource.apiVersion, kind: s.resource.kind, ...obj };
}

export async function handleGet(s: RequestScope): Promise<Response> {
  const resourceVersion = s.query.get("resourceVersion") ?? undefined;
  const storage = s.registry.storage;
  if (!s.target && storage instanceof CachedStorage) return getEncodedOnce(s, storage, resourceVersion);
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
    obj = s.registry.toRequestShared(await storage.getShared(s.registry.key(s.namespace, name), { resourceVersion }));
  } catch (err) {
    s.registry.fail(err, name);
  }
  const variant = `object|${s.encoding}|${s.mediaType}|${s.pretty ? "pretty" : ""}|${s.resource.apiVersion}|${s.resource.kind}`;
  const bytes = encodedOnce(obj, variant, () => {
    const body = encodeBody(s, withTypeMeta(obj, s), "object");
    return typeof body === "string" ? Buffer.from(body, "utf8") : body;
  });
  return bodyResponse(s, bytes, bodyContentType(s, "object"), 200);
}

export async function handleList(s: RequestScope): Promise<Response> {
  const q = parseListQuery(s.query, false, s.profile.metaGroup);
  const selection = buildSelection(s.resource.def, q.labelSelector, q.fieldSelector);
  const res = await s.registry.list({
    namespace: s.namespace,
    resourceVersion: q.resourceVersion,
    resourceVersionMatch: q.resourceVersionMatch,
    limit: q.limit,
    continueToken: q.continueToken,
    predicate: selection.predicate,
    hasSelector: selection.hasSelector,
  });
  const listMeta: Record<string, unknown> = { resourceVersion: res.resourceVersion };
  if (res.continueToken) listMeta.continue = res.continueToken;
  if (res.remainingItemCount !== undefined) listMeta.remainingItemCount = res.remainingItemCount;
  const body = {
    kind: `${s.resource.kind}List`,
    apiVersion: s.resource.apiVersion,
    metadata: listMeta,
    items: res.items.map((o) => withTypeMeta(o, s)),
  };
  return respond(s, renderList(s, body), 200, "list");
}

