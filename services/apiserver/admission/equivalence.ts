/**
 * matchPolicy Equivalent over the catalog: the other served versions of a
 * group/resource, and an object converted between two of them through the
 * storage form.
 */
import type { Catalog } from "../registry/catalog.ts";
import type { JsonObject } from "../storage/object.ts";
import type { Equivalence } from "./webhooks/matching.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

export function catalogEquivalence(catalog: () => Catalog | undefined): Equivalence {
  return {
    versions(group, resource) {
      const c = catalog();
      return c ? c.versionsOf(group).filter((v) => c.lookup(group, v, resource)) : [];
    },
    convert(obj: JsonObject, group, resource, from, to) {
      const c = catalog();
      const src = c?.lookup(group, from, resource)?.registry;
      const dst = c?.lookup(group, to, resource)?.registry;
      if (!src || !dst || from === to) return obj;
      const stored = src.conversion ? src.conversion.view.toStorage(cloneValue(obj)) : obj;
      return dst.conversion ? dst.conversion.view.fromStorage(cloneValue(stored)) : cloneValue(stored);
    },
  };
}
