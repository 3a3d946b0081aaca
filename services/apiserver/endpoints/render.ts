/**
 * Turns what a handler produced (an object, a list, a watch event) into the
 * representation the client negotiated: the object itself, a Table, or
 * PartialObjectMetadata. Encoding to bytes happens in encode.ts.
 */
import { toTable, watchEventTable, type IncludeObject } from "../../../shared/codec/table.ts";
import { badRequest } from "../../../shared/api/status.ts";
import type { JsonObject } from "../storage/object.ts";
import type { RequestScope } from "./scope.ts";

export function includeObject(s: RequestScope): IncludeObject {
  const v = s.query.get("includeObject");
  if (v === null || v === "") return "Metadata";
  if (v === "None" || v === "Metadata" || v === "Object") return v;
  throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
}

export function partialMetadata(s: Pick<RequestScope, "profile">, obj: Readonly<JsonObject>): JsonObject {
  return { kind: "PartialObjectMetadata", apiVersion: `${s.profile.metaGroup}/v1`, metadata: obj.metadata };
}

export function renderObject(s: RequestScope, obj: JsonObject): JsonObject {
  switch (s.target?.kind) {
    case "Table":
      return toTable(s.resource.def, obj, { profile: s.profile, includeObject: includeObject(s) }) as unknown as JsonObject;
    case "PartialObjectMetadata":
      return partialMetadata(s, obj);
    default:
      return obj;
  }
}

export function renderList(s: RequestScope, list: JsonObject & { items: JsonObject[] }): JsonObject {
  switch (s.target?.kind) {
    case "Table":
      return toTable(s.resource.def, list, { profile: s.profile, includeObject: includeObject(s) }) as unknown as JsonObject;
    case "PartialObjectMetadataList":
    case "PartialObjectMetadata":
      return { kind: "PartialObjectMetadataList", apiVersion: `${s.profile.metaGroup}/v1`, metadata: list.metadata, items: list.items.map((o) => partialMetadata(s, o)) };
    default:
      return list;
  }
}

/** What a watch event's rendering depends on: the scope's target and kind, and `includeObject` read once. */
export type EventRendering = Pick<RequestScope, "target" | "resource" | "profile"> & { includeObject: IncludeObject };

/** A watch event's object in the negotiated form; `first` carries the table headers. */
export function renderEvent(r: EventRendering, event: { type: string; object: JsonObject }, first: boolean): { type: string; object: JsonObject } {
  switch (r.target?.kind) {
    case "Table":
      return watchEventTable(r.resource.def, event, { profile: r.profile, includeObject: r.includeObject, noHeaders: !first });
    case "PartialObjectMetadata":
    case "PartialObjectMetadataList":
      return event.type === "ERROR" ? event : { type: event.type, object: partialMetadata(r, event.object) };
    default:
      return event;
  }
}
