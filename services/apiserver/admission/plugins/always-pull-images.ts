/**
 * AlwaysPullImages (default off): every container of a pod created, or updated
 * with a new image, gets `imagePullPolicy: Always`, so a node's cached image is
 * never used without the registry checking the pod's credentials; validate refuses
 * a container left with another policy.
 */

import { fieldErrors, formatFieldError } from "../../../../shared/schema/field-errors.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginFactory } from "../interfaces.ts";
import { admissionForbidden, arr, isResource, obj, str } from "./util.ts";

export const ALWAYS_PULL_IMAGES_PLUGIN = "AlwaysPullImages";

function visit(pod: JsonObject, fn: (c: JsonObject, path: string) => void): void {
  const spec = obj(pod.spec) ?? {};
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    arr(spec[list]).forEach((c, i) => {
      if (isObject(c)) fn(c, `spec.${list}[${i}]`);
    });
  }
}

function images(pod: JsonObject | undefined): Set<string> {
  const out = new Set<string>();
  if (pod) visit(pod, (c) => out.add(str(c.image)));
  return out;
}

/** An update whose images all were in the old pod changes nothing here. */
export function updateWithoutNewImages(a: Pick<Attributes, "operation" | "object" | "oldObject">): boolean {
  if (a.operation !== "UPDATE" || !a.object) return false;
  const old = images(a.oldObject);
  return [...images(a.object)].every((i) => old.has(i));
}

export function setAlwaysPull(pod: JsonObject): void {
  visit(pod, (c) => {
    c.imagePullPolicy = "Always";
  });
}

export const alwaysPullImagesPlugin: PluginFactory = (): AdmissionPlugin => {
  const applies = (a: Attributes) => isResource(a, "", "pods") && !!a.object && !updateWithoutNewImages(a);
  return {
    name: ALWAYS_PULL_IMAGES_PLUGIN,
    handles: (op) => op === "CREATE" || op === "UPDATE",
    admit(a) {
      if (applies(a)) setAlwaysPull(a.object!);
    },
    validate(a) {
      if (!applies(a)) return;
      visit(a.object!, (c, path) => {
        if (c.imagePullPolicy !== "Always") {
          throw admissionForbidden(a, formatFieldError(fieldErrors.notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy ?? "", ["Always"])));
        }
      });
    },
  };
};
