/**
 * PersistentVolumeClaimResize: an update of a claim that grows
 * `spec.resources.requests.storage` is allowed only for a Bound claim whose
 * StorageClass (unchanged, non-empty) sets `allowVolumeExpansion: true`.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, PluginFactory } from "../interfaces.ts";
import { cmp, q } from "./quantity.ts";
import { admissionForbidden, annotationsOf, isResource, obj, str } from "./util.ts";

export const PVC_RESIZE_PLUGIN = "PersistentVolumeClaimResize";
export const NOT_BOUND = "Only bound persistent volume claims can be expanded";
export const NOT_EXPANDABLE = "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize";

function storageOf(pvc: JsonObject | undefined) {
  return q(obj(obj(obj(pvc?.spec)?.resources)?.requests)?.storage ?? "0");
}

export function claimClass(pvc: JsonObject, profile: PlatformProfile): string {
  const spec = obj(pvc.spec) ?? {};
  if (typeof spec.storageClassName === "string") return spec.storageClassName;
  return str(annotationsOf(pvc)[profile.admission.pvcStorageClassBeta]);
}

/** Whether the update grows the claim's storage request. */
export function grows(pvc: JsonObject, old: JsonObject): boolean {
  return cmp(storageOf(pvc), storageOf(old)) > 0;
}

export const persistentVolumeClaimResizePlugin: PluginFactory = (ctx): AdmissionPlugin => ({
  name: PVC_RESIZE_PLUGIN,
  handles: (op) => op === "UPDATE",
  async validate(a) {
    if (!isResource(a, "", "persistentvolumeclaims") || !a.object || !a.oldObject || !grows(a.object, a.oldObject)) return;
    if (str(obj(a.oldObject.status)?.phase) !== "Bound") throw admissionForbidden(a, NOT_BOUND);
    const cls = claimClass(a.object, ctx.profile);
    let allowed = false;
    if (cls && cls === claimClass(a.oldObject, ctx.profile)) {
      const sc = await ctx.objects.get({ group: ctx.profile.group("storage"), resource: "storageclasses", name: cls });
      allowed = sc?.allowVolumeExpansion === true;
    }
    if (!allowed) throw admissionForbidden(a, NOT_EXPANDABLE);
  },
});
