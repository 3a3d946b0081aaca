/** Reads, decodes and type-checks the object in a create or update body. */
import { badRequest } from "../../../../shared/api/status.ts";
import type { JsonObject } from "../../storage/object.ts";
import { bodyFormat, decodeBody, readBody, type BodyFormat, type DecodedBody } from "../body.ts";
import { decodeCbor } from "../../../../shared/codec/cbor.ts";
import { decodeObject } from "../../../../shared/codec/protobuf/index.ts";
import type { RequestScope } from "../scope.ts";
import { checkFields, parseFieldValidation } from "../write-options.ts";

/** Decodes a body in any of the encodings the endpoint reads: JSON, YAML, protobuf (built-in kinds), CBOR (gate). */
export function decodeObjectBody(s: RequestScope, contentType: string | null, bytes: Uint8Array): DecodedBody {
  const base = (contentType ?? "application/json").split(";")[0].trim().toLowerCase();
  if (base === s.profile.protobufMediaType && s.resource.def.protobuf) {
    try {
      return { value: decodeObject(s.resource.def, bytes), duplicates: [] };
    } catch (err) {
      throw badRequest(`protobuf: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (base === "application/cbor" && s.cbor) {
    try {
      return { value: decodeCbor(bytes), duplicates: [] };
    } catch (err) {
      throw badRequest(`cbor: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const accepted: Record<string, BodyFormat> = { "application/json": "json", "application/yaml": "yaml" };
  if (s.resource.def.protobuf) accepted[s.profile.protobufMediaType] = "json";
  if (s.cbor) accepted["application/cbor"] = "json";
  return decodeBody(bytes, bodyFormat(contentType, accepted));
}

export async function readObject(s: RequestScope): Promise<JsonObject> {
  const bytes = await readBody(s.request, s.maxBodyBytes);
  const decoded = decodeObjectBody(s, s.request.headers.get("content-type"), bytes);
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
