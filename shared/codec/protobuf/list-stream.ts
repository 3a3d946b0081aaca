/**
 * A `<Kind>List` protobuf body written item by item, byte for byte what `encodeList`
 * writes for the whole list. The envelope's `raw` field is length-prefixed, so a
 * first pass sizes every item (keeping the encoded bytes of the first ones, up to
 * `retainBytes`), a second pass writes them, encoding the others again. Memory
 * stays bounded by `retainBytes` plus one item, whatever the list's size.
 */
import type { PlatformProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { PAUSE, type Piece } from "../chunked-stream.ts";
import { PROTOBUF_MAGIC, decodeEnvelope } from "./envelope.ts";
import { kindLayout, listLayout } from "./layout.ts";
import { encodeMessage } from "./compiled.ts";
import { WIRE_LEN, Writer } from "./wire.ts";

type Obj = Record<string, unknown>;

export interface ProtobufListParts {
  metadata: Obj;
  count: number;
  /** The i-th item (apiVersion and kind, if present, are not encoded). */
  item(i: number): Obj;
  /** The i-th item's whole protobuf object body (`encodeObject`), when already known: its `raw` is reused. */
  cached?(i: number): Uint8Array | undefined;
}

const ITEMS_TAG = 2 * 8 + WIRE_LEN;

function itemMessage(def: KindDefinition, item: Obj): Uint8Array {
  const { apiVersion: _a, kind: _k, ...rest } = item;
  return encodeMessage(kindLayout(def), rest);
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    len++;
  }
  return len;
}

export function* protobufListBody(def: KindDefinition, profile: PlatformProfile, parts: ProtobufListParts, retainBytes = 1 << 20): Generator<Piece> {
  const encodeItem = (i: number): Uint8Array => {
    const whole = parts.cached?.(i);
    return whole ? decodeEnvelope(whole).raw : itemMessage(def, parts.item(i));
  };
  const head = encodeMessage(listLayout(def), { metadata: parts.metadata });
  const sizes = new Array<number>(parts.count);
  const kept = new Array<Uint8Array | undefined>(parts.count);
  let retained = 0;
  let rawLength = head.length;
  for (let i = 0; i < parts.count; i++) {
    const bytes = encodeItem(i);
    sizes[i] = bytes.length;
    rawLength += 1 + varintLength(bytes.length) + bytes.length;
    if (retained + bytes.length <= retainBytes) {
      kept[i] = bytes;
      retained += bytes.length;
    }
    yield PAUSE;
  }
  const typeMeta = new Writer(64).tag(1, WIRE_LEN).string(profile.apiVersion(def.group, def.version)).tag(2, WIRE_LEN).string(`${def.kind}List`).finish();
  yield new Writer(typeMeta.length + 32).raw(PROTOBUF_MAGIC).tag(1, WIRE_LEN).bytes(typeMeta).tag(2, WIRE_LEN).uvarint(rawLength).raw(head).finish();
  for (let i = 0; i < parts.count; i++) {
    const bytes = kept[i] ?? encodeItem(i);
    kept[i] = undefined;
    if (bytes.length !== sizes[i]) throw new Error(`protobuf list: item ${i} changed size while streaming`);
    yield new Writer(12).uvarint(ITEMS_TAG).uvarint(bytes.length).finish();
    yield bytes;
  }
  yield new Writer(4).tag(3, WIRE_LEN).string("").tag(4, WIRE_LEN).string("").finish();
}
