/**
 * Create-only virtual resources (access and token reviews) and create-only
 * subresources (TokenRequest): the body goes to a handler, nothing is stored.
 */
import { badRequest, notFound } from "../../../shared/api/status.ts";
import { isObject, type JsonObject } from "../storage/object.ts";
import { readBody } from "./body.ts";
import { respond } from "./encode.ts";
import { decodeObjectBody } from "./handlers/decode-object.ts";
import { warningHeader, type RequestScope, type UserInfo } from "./scope.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";

/** `warn` adds a `Warning` header to the response. */
export type VirtualHandler = (body: JsonObject, user: UserInfo, namespace?: string, name?: string, warn?: (text: string) => void) => Promise<JsonObject> | JsonObject;

/** `bodyKind` is the kind of the request body when it is not the endpoint's (TokenRequest on serviceaccounts/token). */
export async function handleVirtual(s: RequestScope, handler: VirtualHandler | undefined, bodyKind?: KindDefinition): Promise<Response> {
  if (!handler) throw notFound(s.resource.plural, s.name ?? "", s.resource.group);
  const bytes = await readBody(s.request, s.maxBodyBytes);
  const scope = bodyKind ? { ...s, resource: { ...s.resource, def: bodyKind } } : s;
  const { value } = decodeObjectBody(scope, s.request.headers.get("content-type"), bytes);
  if (!isObject(value)) throw badRequest("the request body must be an object");
  const result = await handler(value, s.user ?? { username: "system:anonymous", groups: ["system:unauthenticated"] }, s.namespace, s.name, (text) => s.warnings.push(warningHeader(text)));
  return respond(scope, result, 201, bodyKind?.protobuf || s.resource.def.protobuf ? "object" : "other");
}
