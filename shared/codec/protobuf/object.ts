/**
 * Whole bodies in the protobuf media type: objects, lists, Status and watch
 * events, each in the envelope (envelope.ts) whose `raw` is the object message.
 *
 * `apiVersion` and `kind` are not part of an object's message: the encoder puts
 * them in the envelope's `typeMeta`, the decoder copies them back to the front
 * of the JSON object.
 */
import type { PlatformProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { status as statusSchema } from "../../api/groups/meta-v1.ts";
import { isObject } from "../../schema/values.ts";
import { decodeEnvelope, encodeEnvelope, type Envelope } from "./envelope.ts";
import { kindLayout, listLayout, messageLayout, type MessageLayout } from "./layout.ts";
import { encodeMessage } from "./compiled.ts";
import { decodeMessage, parseJsonRaw, type DecodeMessageOptions } from "./message.ts";
import { ProtobufError, WIRE_LEN, Writer, decodeUtf8, readFields } from "./wire.ts";

type Obj = Record<string, unknown>;

export interface DecodeObjectOptions extends DecodeMessageOptions {
  /** When given, the envelope's apiVersion must be the kind's in this profile. */
  profile?: PlatformProfile;
}

function encodeWith(layout: MessageLayout, obj: Obj, apiVersion: string, kind: string): Uint8Array {
  return encodeEnvelope({ apiVersion, kind, raw: encodeMessage(layout, obj) });
}

function withTypeMeta(env: Envelope, body: Obj): Obj {
  return { apiVersion: env.apiVersion, kind: env.kind, ...body };
}

function checkEnvelope(env: Envelope, want: { apiVersion?: string; kind: string }): void {
  if (env.contentEncoding !== "") throw new ProtobufError("InvalidValue", `unsupported content encoding ${JSON.stringify(env.contentEncoding)}`, "Unknown");
  if (env.kind !== want.kind) throw new ProtobufError("KindMismatch", `envelope holds kind ${JSON.stringify(env.kind)}, expected ${JSON.stringify(want.kind)}`, "Unknown.typeMeta");
  if (want.apiVersion !== undefined && env.apiVersion !== want.apiVersion) {
    throw new ProtobufError("KindMismatch", `envelope holds apiVersion ${JSON.stringify(env.apiVersion)}, expected ${JSON.stringify(want.apiVersion)}`, "Unknown.typeMeta");
  }
}

/** An object of a kind as a protobuf body (prefix + envelope); typeMeta is the kind's apiVersion in the profile. */
export function encodeObject(def: KindDefinition, obj: Obj, profile: PlatformProfile): Uint8Array {
  return encodeWith(kindLayout(def), obj, profile.apiVersion(def.group, def.version), def.kind);
}

/** Decodes a protobuf body of a kind into its JSON form (apiVersion and kind from the envelope). */
export function decodeObject(def: KindDefinition, bytes: Uint8Array, opts: DecodeObjectOptions = {}): Obj {
  const env = decodeEnvelope(bytes);
  checkEnvelope(env, { kind: def.kind, apiVersion: opts.profile?.apiVersion(def.group, def.version) });
  return withTypeMeta(env, decodeMessage(kindLayout(def), env.raw, opts));
}

/** `<Kind>List{metadata 1, items 2}`; items carry no typeMeta of their own. */
export function encodeList(def: KindDefinition, list: Obj, profile: PlatformProfile): Uint8Array {
  const layout = listLayout(def);
  const apiVersion = profile.apiVersion(def.group, def.version);
  // Items are copied without their apiVersion/kind only for a kind whose message would write them.
  if (!typeMetaOnWire(kindLayout(def))) return encodeWith(layout, list, apiVersion, `${def.kind}List`);
  const items = Array.isArray(list.items) ? list.items.map((i) => (isObject(i) ? stripTypeMeta(i) : i)) : list.items;
  return encodeWith(layout, { ...list, items }, apiVersion, `${def.kind}List`);
}

/** Whether a message has fields named apiVersion or kind (a kind's own message normally has neither). */
export function typeMetaOnWire(layout: MessageLayout): boolean {
  return layout.fields.some((f) => !f.embed && (f.name === "apiVersion" || f.name === "kind"));
}

function stripTypeMeta(o: Obj): Obj {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/** Decodes a list body. Items get no apiVersion/kind (as the platform's JSON lists of built-in kinds have none on items). */
export function decodeList(def: KindDefinition, bytes: Uint8Array, opts: DecodeObjectOptions = {}): Obj {
  const env = decodeEnvelope(bytes);
  checkEnvelope(env, { kind: `${def.kind}List`, apiVersion: opts.profile?.apiVersion(def.group, def.version) });
  const body = decodeMessage(listLayout(def), env.raw, opts);
  if (!("items" in body)) body.items = [];
  return withTypeMeta(env, body);
}

const statusLayout = (): MessageLayout => messageLayout(statusSchema, "Status", { group: "meta", version: "v1" });

/** A Status; typeMeta is `v1`/`Status` as the platform writes it for every group, unless the object says otherwise. */
export function encodeStatus(status: Obj): Uint8Array {
  const apiVersion = typeof status.apiVersion === "string" ? status.apiVersion : "v1";
  return encodeWith(statusLayout(), status, apiVersion, "Status");
}

export function decodeStatus(bytes: Uint8Array, opts: DecodeMessageOptions = {}): Obj {
  const env = decodeEnvelope(bytes);
  checkEnvelope(env, { kind: "Status" });
  return withTypeMeta(env, decodeMessage(statusLayout(), env.raw, opts));
}

// ------------------------------------------------------------------ watch events

export interface WatchEvent {
  type: string;
  object: Obj;
}

/**
 * The payload of one protobuf watch frame: a bare `WatchEvent{type 1, object 2}`
 * message whose `object` is a RawExtension{raw 1} holding the object's full
 * protobuf body (prefix + envelope). As on the platform, the event itself has
 * no prefix and no envelope: the watch stream uses the raw serializer, and only
 * the embedded object is self-describing. A Status (an ERROR event) is encoded
 * as a Status body.
 */
export function encodeWatchEvent(def: KindDefinition, event: WatchEvent, profile: PlatformProfile): Uint8Array {
  const body = event.object.kind === "Status" && def.kind !== "Status" ? encodeStatus(event.object) : encodeObject(def, event.object, profile);
  const raw = new Writer(body.length + 8).tag(1, WIRE_LEN).bytes(body).finish();
  return new Writer(raw.length + 32).tag(1, WIRE_LEN).string(event.type).tag(2, WIRE_LEN).bytes(raw).finish();
}

/** Decodes one watch frame payload (see `encodeWatchEvent`); the object is decoded by its envelope's kind. */
export function decodeWatchEvent(def: KindDefinition, payload: Uint8Array, opts: DecodeObjectOptions = {}): WatchEvent {
  let type = "";
  let raw: Uint8Array | undefined;
  for (const f of readFields(payload, "WatchEvent")) {
    if (f.field !== 1 && f.field !== 2) continue;
    if (f.wire.wireType !== WIRE_LEN) throw new ProtobufError("WrongWireType", `field ${f.field} has wire type ${f.wire.wireType}, expected 2`, "WatchEvent");
    if (f.field === 1) type = decodeUtf8(f.wire.value);
    else {
      for (const g of readFields(f.wire.value, "WatchEvent.object")) {
        if (g.field !== 1) continue;
        if (g.wire.wireType !== WIRE_LEN) throw new ProtobufError("WrongWireType", `field 1 has wire type ${g.wire.wireType}, expected 2`, "WatchEvent.object");
        raw = g.wire.value;
      }
    }
  }
  if (type === "") throw new ProtobufError("InvalidValue", "watch event has no type", "WatchEvent.type");
  if (!raw || raw.length === 0) throw new ProtobufError("InvalidValue", "watch event has no object", "WatchEvent.object");
  if (raw[0] === 0x7b) {
    // A JSON object embedded by another encoder.
    const v = parseJsonRaw(raw, "WatchEvent.object");
    if (!isObject(v)) throw new ProtobufError("InvalidValue", "watch event object is not an object", "WatchEvent.object");
    return { type, object: v };
  }
  const env = decodeEnvelope(raw);
  if (env.kind === "Status" && def.kind !== "Status") return { type, object: decodeStatus(raw, opts) };
  return { type, object: decodeObject(def, raw, opts) };
}
