/**
 * storage/v1beta1 (beta since 1.31): VolumeAttributesClass with the fields of storage/v1,
 * where it went GA in 1.34. A beta introduced after 1.22, so off unless `--runtime-config`
 * enables it; deprecated in 1.34, unavailable in 1.37. Objects are stored as storage/v1.
 */
import type { KindDefinition } from "../../schema/types.ts";
import { atVersion } from "./pre-release-version.ts";
import { volumeAttributesClassKind } from "./storage-v1-vac.ts";

export const kinds: KindDefinition[] = [atVersion(volumeAttributesClassKind, "v1beta1")];
