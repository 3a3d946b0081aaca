/** GET of one object and list of a collection. */
import type { JsonObject } from "../../storage/object.ts";
import { respond } from "../encode.ts";
import { renderList, renderObject } from "../render.ts";
import { parseListQuery } from "../list-options.ts";
import { buildSelection } from "../predicate.ts";
import type { RequestScope } from "../scope.ts";

export function withTypeMeta(obj: JsonObject, s: RequestScope): JsonObject {
  return { apiVersion: s.resource.apiVersion, kind: s.resource.kind, ...obj };
}

export async function handleGet(s: RequestScope): Promise<Response> {
  const obj = await s.registry.get(s.namespace, s.name as string, s.query.get("resourceVersion") ?? undefined);
  return respond(s, renderObject(s, withTypeMeta(obj, s)), 200, "object");
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

