/** GET and LIST of componentstatuses: computed on each request by the replica's provider, never stored. */
import { methodNotAllowed, notFound } from "../../../../shared/api/status.ts";
import type { JsonObject } from "../../storage/object.ts";
import { respond } from "../encode.ts";
import { renderList, renderObject } from "../render.ts";
import type { RequestScope } from "../scope.ts";
import { withTypeMeta } from "./read.ts";

export type ComponentStatusProvider = () => Promise<JsonObject[]>;

export async function handleComponentStatuses(s: RequestScope, provide: ComponentStatusProvider | undefined): Promise<Response> {
  if (s.verb !== "get" && s.verb !== "list") throw methodNotAllowed(s.resource.plural, s.verb, s.resource.group);
  const items = (await (provide?.() ?? Promise.resolve([]))).map((o) => withTypeMeta(o, s));
  if (s.verb === "get") {
    const found = items.find((o) => (o.metadata as { name?: string } | undefined)?.name === s.name);
    if (!found) throw notFound(s.resource.plural, s.name ?? "", s.resource.group);
    return respond(s, renderObject(s, found), 200, "object");
  }
  return respond(s, renderList(s, { apiVersion: s.resource.apiVersion, kind: `${s.resource.kind}List`, metadata: {}, items }), 200, "list");
}
