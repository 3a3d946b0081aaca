/**
 * Test fixture: a namespaced CustomResourceDefinition of `crontabs.stable.example.com`
 * (kind CronTab), one served storage version v1 with the given structural schema.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";

export function crontabCrd(profile: PlatformProfile, openAPIV3Schema: JsonObject): JsonObject {
  return {
    apiVersion: profile.apiVersion("apiextensions", "v1"),
    kind: "CustomResourceDefinition",
    metadata: { name: "crontabs.stable.example.com" },
    spec: {
      group: "stable.example.com",
      scope: "Namespaced",
      names: { plural: "crontabs", singular: "crontab", kind: "CronTab" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}
