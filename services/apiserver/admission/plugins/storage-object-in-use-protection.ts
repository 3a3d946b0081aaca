/**
 * StorageObjectInUseProtection: a PersistentVolumeClaim or PersistentVolume created
 * through the main resource gets the protection finalizer (pvc-protection,
 * pv-protection) unless it already has it; the protection controllers remove it
 * once the object is no longer in use.
 */
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, PluginFactory } from "../interfaces.ts";
import { arr, child, isResource } from "./util.ts";

export const STORAGE_OBJECT_IN_USE_PROTECTION_PLUGIN = "StorageObjectInUseProtection";

export function addFinalizer(o: JsonObject, finalizer: string): void {
  const m = child(o, "metadata");
  const finalizers = arr(m.finalizers);
  if (!finalizers.includes(finalizer)) m.finalizers = [...finalizers, finalizer];
}

export const storageObjectInUseProtectionPlugin: PluginFactory = (ctx): AdmissionPlugin => ({
  name: STORAGE_OBJECT_IN_USE_PROTECTION_PLUGIN,
  handles: (op) => op === "CREATE",
  admit(a) {
    // The kind first: reading the object costs the chain its copy (attributes.ts).
    if (isResource(a, "", "persistentvolumeclaims")) {
      if (a.object) addFinalizer(a.object, ctx.profile.admission.pvcProtectionFinalizer);
    } else if (isResource(a, "", "persistentvolumes")) {
      if (a.object) addFinalizer(a.object, ctx.profile.admission.pvProtectionFinalizer);
    }
  },
});
