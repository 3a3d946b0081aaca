/**
 * Protobuf nesting of structs that JSON inlines, gathered from the group files
 * into one table keyed by `<group>/<version>/<definition name>` of the parent.
 *
 * In JSON an inlined Go struct's fields sit flat in the parent
 * (`volumes[0].configMap`); in protobuf they are one nested message at a field
 * of the parent (`Volume.volumeSource = 2`), numbered within that message.
 * core/v1 exports `protoEmbeddings`, admissionregistration/v1 exports
 * `PROTOBUF_INLINED`; `SUPPLEMENT` lists the ones the group files do not export
 * yet (networking/v1 `IngressRule.ingressRuleValue = 2 { http = 1 }`).
 *
 * `PROTOBUF_UNIONS` lists properties whose protobuf message is a union wrapper
 * that the schema vocabulary cannot express (apiextensions/v1 JSONSchemaProps:
 * `items` is JSONSchemaPropsOrArray, `additionalProperties`/`additionalItems`
 * are JSONSchemaPropsOrBool, `dependencies` values are JSONSchemaPropsOrStringArray).
 */
import { PROTOBUF_INLINED as ADMISSION_INLINED } from "../../api/groups/admissionregistration-v1.ts";
import { protoEmbeddings as CORE_EMBEDDINGS } from "../../api/groups/core-v1.ts";

export interface Embedding {
  /** Field number of the nested message within the parent message. */
  field: number;
  /** Field name in the parent message (for .proto output). */
  fieldName: string;
  /** Message name of the embedded struct. */
  message: string;
  /** JSON property (of the parent) → field number within the embedded message. */
  tags: Readonly<Record<string, number>>;
  /** A struct embedded in turn within the embedded message. */
  nested?: Embedding;
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/** Field names the platform's generated .proto files use where they are not the lower-cased message name. */
const CORE_FIELD_NAMES: Readonly<Record<string, string>> = { Probe: "handler" };

function build(): Map<string, Embedding> {
  const out = new Map<string, Embedding>();
  for (const [parent, e] of Object.entries(CORE_EMBEDDINGS)) {
    out.set(`core/v1/${parent}`, { field: e.field, fieldName: CORE_FIELD_NAMES[parent] ?? lowerFirst(e.message), message: e.message, tags: e.tags });
  }
  const admission: Record<string, { field: string; tag: number; message: string; fields: Readonly<Record<string, number>> }> = ADMISSION_INLINED;
  const byMessage = new Map<string, Embedding>();
  for (const [parent, e] of Object.entries(admission)) {
    const emb: Embedding = { field: e.tag, fieldName: e.field, message: e.message, tags: e.fields };
    out.set(`admissionregistration/v1/${parent}`, emb);
    byMessage.set(parent, emb);
  }
  // An embedded message that is itself a parent with an embedding nests that one too.
  for (const [parent] of Object.entries(admission)) {
    const emb = out.get(`admissionregistration/v1/${parent}`);
    const inner = emb ? byMessage.get(emb.message) : undefined;
    if (emb && inner && inner !== emb) emb.nested = inner;
  }
  for (const [key, emb] of Object.entries(SUPPLEMENT)) out.set(key, emb);
  return out;
}

const SUPPLEMENT: Readonly<Record<string, Embedding>> = {
  "networking/v1/IngressRule": { field: 2, fieldName: "ingressRuleValue", message: "IngressRuleValue", tags: { http: 1 } },
};

export const EMBEDDINGS: ReadonlyMap<string, Embedding> = build();

export type UnionKind = "schemaOrArray" | "schemaOrBool" | "schemaOrStringArray";

export interface UnionInfo {
  kind: UnionKind;
  /** Wrapper message name. */
  message: string;
  /** The union is the value of a map (`map<string, Wrapper>`) rather than the field itself. */
  mapValue?: boolean;
}

export const PROTOBUF_UNIONS: ReadonlyMap<string, Readonly<Record<string, UnionInfo>>> = new Map([
  [
    "apiextensions/v1/JSONSchemaProps",
    {
      items: { kind: "schemaOrArray", message: "JSONSchemaPropsOrArray" },
      additionalProperties: { kind: "schemaOrBool", message: "JSONSchemaPropsOrBool" },
      additionalItems: { kind: "schemaOrBool", message: "JSONSchemaPropsOrBool" },
      dependencies: { kind: "schemaOrStringArray", message: "JSONSchemaPropsOrStringArray", mapValue: true },
    },
  ],
]);
