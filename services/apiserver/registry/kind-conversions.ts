/**
 * The kinds served in more than one version and how they convert: the
 * HorizontalPodAutoscaler, stored as autoscaling/v2 and also served as v1, and the
 * Event, stored as core/v1 and also served as events/v1 (event-conversion.ts), and the
 * pre-release versions of release 1.35 (pre-release-conversions.ts).
 */
import { hpaV1ToV2, hpaV2Clean, hpaV2ToV1 } from "../../../shared/api/groups/autoscaling-conversion.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { conversionKey, type KindConversion } from "./conversion.ts";
import { eventConversions } from "./event-conversion.ts";
import { preReleaseConversions } from "./pre-release-conversions.ts";

export function kindConversions(profile: PlatformProfile): ReadonlyMap<string, KindConversion> {
  const hpa: KindConversion = {
    storageVersion: "v2",
    versions: {
      v1: { toStorage: (o) => hpaV1ToV2(o, profile), fromStorage: (o) => hpaV2ToV1(o, profile) },
      v2: { toStorage: (o) => hpaV2Clean(o, profile), fromStorage: (o) => hpaV2Clean(o, profile) },
    },
  };
  return new Map([[conversionKey("autoscaling", "HorizontalPodAutoscaler"), hpa], ...eventConversions(profile), ...preReleaseConversions(profile)]);
}
