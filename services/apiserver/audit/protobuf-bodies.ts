/**
 * Request and response bodies in the profile's protobuf media type, decoded for an
 * audit event as the JSON form of their kind (an object, its list, or a Status), as
 * the platform logs decoded objects whatever the wire format. Undecodable: undefined.
 */
import { decodeList, decodeObject, decodeStatus } from "../../../shared/codec/protobuf/object.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import type { AuditObjectRef } from "../server/filters/with-audit.ts";

/** The kind definition served for a request's resource (undefined: not served here). */
export type KindLookup = (ref: AuditObjectRef) => KindDefinition | undefined;

export type ProtobufBodyDecoder = (ref: AuditObjectRef | undefined, bytes: Uint8Array) => unknown;

export function protobufBodyDecoder(lookup: KindLookup): ProtobufBodyDecoder {
  return (ref, bytes) => {
    const def = ref && (!ref.subresource || ref.subresource === "status") ? lookup(ref) : undefined;
    const attempts: Array<() => unknown> = def ? [() => decodeObject(def, bytes), () => decodeList(def, bytes)] : [];
    attempts.push(() => decodeStatus(bytes));
    for (const attempt of attempts) {
      try {
        return attempt();
      } catch {
        /* the next shape */
      }
    }
    return undefined;
  };
}
