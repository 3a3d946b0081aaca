/**
 * storage/v1alpha1 (alpha since 1.29): VolumeAttributesClass with the fields of storage/v1.
 * Deprecated in 1.32 and no longer served from 1.35: a replica serves it only while it
 * emulates 1.34 or earlier and `--runtime-config` enables it. Stored as storage/v1.
 */
import type { KindDefinition } from "../../schema/types.ts";
import { atVersion } from "./pre-release-version.ts";
import { volumeAttributesClassKind } from "./storage-v1-vac.ts";

export const kinds: KindDefinition[] = [atVersion(volumeAttributesClassKind, "v1alpha1")];
