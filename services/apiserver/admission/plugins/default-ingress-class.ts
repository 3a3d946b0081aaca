/**
 * DefaultIngressClass: an Ingress created with neither `spec.ingressClassName` nor
 * the legacy class annotation gets the IngressClass annotated is-default-class
 * "true" (the newest when several are).
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, PluginFactory } from "../interfaces.ts";
import { pickNewest } from "./default-storage-class.ts";
import { annotationsOf, child, isResource, listFresh, obj, str } from "./util.ts";

export const DEFAULT_INGRESS_CLASS_PLUGIN = "DefaultIngressClass";

export function needsIngressClass(ingress: JsonObject, profile: PlatformProfile): boolean {
  return typeof obj(ingress.spec)?.ingressClassName !== "string" && !(profile.admission.ingressClassAnnotation in annotationsOf(ingress));
}

export function defaultIngressClass(classes: JsonObject[], profile: PlatformProfile): JsonObject | undefined {
  return pickNewest(classes.filter((c) => annotationsOf(c)[profile.admission.defaultIngressClass] === "true"), false);
}

export const defaultIngressClassPlugin: PluginFactory = (ctx): AdmissionPlugin => {
  const setDefault = async (object: JsonObject): Promise<void> => {
    const classes = await listFresh(ctx.objects, ctx.profile.group("networking"), "ingressclasses", undefined, (items) => defaultIngressClass(items, ctx.profile) !== undefined);
    const def = defaultIngressClass(classes, ctx.profile);
    if (def) child(object, "spec").ingressClassName = str(obj(def.metadata)?.name);
  };
  return {
    name: DEFAULT_INGRESS_CLASS_PLUGIN,
    handles: (op) => op === "CREATE",
    // Synchronous for everything but an ingress without a class.
    admit(a) {
      if (!isResource(a, ctx.profile.group("networking"), "ingresses") || !a.object || !needsIngressClass(a.object, ctx.profile)) return undefined;
      return setDefault(a.object);
    },
  };
};
