/**
 * Protobuf layout of the Go structs that core/v1 embeds inline. In JSON their
 * fields sit flat in the parent (`volumes[0].configMap`); in protobuf they are
 * one nested message at `field` of the parent (`Volume.volumeSource = 2`),
 * numbered within that message. The flattened schema properties carry no
 * `protoTag`; a protobuf codec reads this table, keyed by the parent's
 * definition name. (The schema vocabulary has no way to say "embedded" yet.)
 */
import type { Schema } from "../../schema/types.ts";
import { containerFields, probeHandlerFields } from "./core-v1-container.ts";
import { persistentVolumeSourceFields, volumeSourceFields } from "./core-v1-volume.ts";

export interface ProtoEmbedding {
  /** Field number of the embedded message within the parent message. */
  field: number;
  /** Go/protobuf name of the embedded message. */
  message: string;
  /** JSON property → field number within the embedded message. */
  tags: Record<string, number>;
}

function tagsOf(fields: Record<string, Schema>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(fields)) if (v.protoTag !== undefined) out[k] = v.protoTag;
  return out;
}

const localRef: ProtoEmbedding = { field: 1, message: "LocalObjectReference", tags: { name: 1 } };

/** Parent definition name (core/v1) → its inlined struct. */
export const protoEmbeddings: Readonly<Record<string, ProtoEmbedding>> = {
  Volume: { field: 2, message: "VolumeSource", tags: tagsOf(volumeSourceFields) },
  PersistentVolumeSpec: { field: 2, message: "PersistentVolumeSource", tags: tagsOf(persistentVolumeSourceFields) },
  Probe: { field: 1, message: "ProbeHandler", tags: tagsOf(probeHandlerFields) },
  EphemeralContainer: { field: 1, message: "EphemeralContainerCommon", tags: tagsOf(containerFields) },
  ConfigMapVolumeSource: localRef,
  ConfigMapProjection: localRef,
  SecretProjection: localRef,
  ConfigMapEnvSource: localRef,
  SecretEnvSource: localRef,
  ConfigMapKeySelector: localRef,
  SecretKeySelector: localRef,
};
