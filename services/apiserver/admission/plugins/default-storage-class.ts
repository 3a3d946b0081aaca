/**
 * DefaultStorageClass: a PersistentVolumeClaim created without a class (neither
 * `spec.storageClassName`, even "", nor the beta class annotation) gets the name of
 * the default StorageClass (annotated is-default-class "true", current or beta
 * annotation); with several defaults the newest wins, then the first by name.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, PluginFactory } from "../interfaces.ts";
import { annotationsOf, child, isResource, listFresh, obj, str } from "./util.ts";

export const DEFAULT_STORAGE_CLASS_PLUGIN = "DefaultStorageClass";

export function hasClass(pvc: JsonObject, profile: PlatformProfile): boolean {
  return typeof obj(pvc.spec)?.storageClassName === "string" || profile.admission.pvcStorageClassBeta in annotationsOf(pvc);
}

export function isDefaultStorageClass(sc: JsonObject, profile: PlatformProfile): boolean {
  const ann = annotationsOf(sc);
  return ann[profile.admission.defaultStorageClass] === "true" || ann[profile.admission.defaultStorageClassBeta] === "true";
}

/** Newest first (creationTimestamp), then by name ascending. */
export function pickNewest(candidates: JsonObject[], byName = true): JsonObject | undefined {
  const key = (o: JsonObject) => str(obj(o.metadata)?.creationTimestamp);
  const name = (o: JsonObject) => str(obj(o.metadata)?.name);
  return [...candidates].sort((a, b) => {
    const ta = Date.parse(key(a)) || 0;
    const tb = Date.parse(key(b)) || 0;
    if (ta !== tb) return tb - ta;
    return byName ? (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0) : 0;
  })[0];
}

export function defaultStorageClass(classes: JsonObject[], profile: PlatformProfile): JsonObject | undefined {
  return pickNewest(classes.filter((c) => isDefaultStorageClass(c, profile)));
}

export const defaultStorageClassPlugin: PluginFactory = (ctx): AdmissionPlugin => {
  const setDefault = async (object: JsonObject): Promise<void> => {
    const classes = await listFresh(ctx.objects, ctx.profile.group("storage"), "storageclasses", undefined, (items) => defaultStorageClass(items, ctx.profile) !== undefined);
    const def = defaultStorageClass(classes, ctx.profile);
    if (def) child(object, "spec").storageClassName = str(obj(def.metadata)?.name);
  };
  return {
    name: DEFAULT_STORAGE_CLASS_PLUGIN,
    handles: (op) => op === "CREATE",
    // Synchronous for everything but a claim without a class.
    admit(a) {
      if (!isResource(a, "", "persistentvolumeclaims") || !a.object || hasClass(a.object, ctx.profile)) return undefined;
      return setDefault(a.object);
    },
  };
};
