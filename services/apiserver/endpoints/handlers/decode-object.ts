/** Reads, decodes and type-checks the object in a create or update body. */
import { badRequest } from "../../../../shared/api/status.ts";
import type { JsonObject } from "../../storage/object.ts";
import { bodyFormat, decodeBody, readBody } from "../body.ts";
import type { RequestScope } from "../scope.ts";
import { checkFields, parseFieldValidation } from "../write-options.ts";

const OBJECT_BODY_TYPES = { "application/json": "json", "application/yaml": "yaml" } as const;

export async function readObject(s: RequestScope): Promise<JsonObject> {
  const format = bodyFormat(s.request.headers.get("content-type"), OBJECT_BODY_TYPES);
  const bytes = await readBody(s.request, s.maxBodyBytes);
  const decoded = decodeBody(bytes, format);
  const obj = checkFields(s, s.resource.def.schema, decoded.value, decoded.duplicates, parseFieldValidation(s.query));
  checkTypeMeta(obj, s);
  return obj;
}

/** apiVersion and kind in the body, when given, must be the endpoint's. */
export function checkTypeMeta(obj: JsonObject, s: RequestScope): void {
  const { apiVersion, kind } = obj;
  if (apiVersion !== undefined && apiVersion !== s.resource.apiVersion) {
    throw badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${s.resource.apiVersion})`);
  }
  if (kind !== undefined && kind !== s.resource.kind) {
    throw badRequest(`${String(kind)} in version "${s.resource.version}" cannot be handled as a ${s.resource.kind}: the kind in the data (${String(kind)}) does not match the expected kind (${s.resource.kind})`);
  }
  obj.apiVersion = s.resource.apiVersion;
  obj.kind = s.resource.kind;
}
