/**
 * OwnerReferencesPermissionEnforcement (default off): changing an object's
 * ownerReferences on update needs the `delete` permission on the object itself; a
 * new `blockOwnerDeletion: true` reference (create or update) needs `update` on the
 * owner's `finalizers` subresource. Pod status updates are exempt. The owner's
 * resource is found from its apiVersion and kind among the served kinds.
 */
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext, PluginFactory } from "../interfaces.ts";
import { admissionForbidden, arr, isResource, obj, str } from "./util.ts";

export const OWNER_REFERENCES_PLUGIN = "OwnerReferencesPermissionEnforcement";

function refsOf(o: JsonObject | undefined): JsonObject[] {
  return arr(obj(o?.metadata)?.ownerReferences).filter(isObject);
}

export function changesOwnerReferences(a: Pick<Attributes, "operation" | "object" | "oldObject">): boolean {
  const now = refsOf(a.object);
  if (a.operation === "CREATE") return now.length > 0;
  return JSON.stringify(now) !== JSON.stringify(refsOf(a.oldObject));
}

/** References with blockOwnerDeletion true that were not already blocking (by uid). */
export function newBlockingRefs(object: JsonObject | undefined, old: JsonObject | undefined): JsonObject[] {
  const blocking = new Set(refsOf(old).filter((r) => r.blockOwnerDeletion === true).map((r) => str(r.uid)));
  return refsOf(object).filter((r) => r.blockOwnerDeletion === true && !blocking.has(str(r.uid)));
}

/** The plural of a kind as the platform derives it. */
export function pluralOf(kind: string): string {
  const k = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

class OwnerReferencesPlugin implements AdmissionPlugin {
  readonly name = OWNER_REFERENCES_PLUGIN;
  constructor(private readonly ctx: PluginContext) {}

  handles(op: string): boolean {
    return op === "CREATE" || op === "UPDATE";
  }

  async validate(a: Attributes): Promise<void> {
    if (!a.object || isResource(a, "", "pods", ["status"]) || !changesOwnerReferences(a)) return;
    if (a.operation !== "CREATE") {
      const { group, version, resource } = a.resource;
      const ok = await this.ctx.authorize(a.userInfo, { verb: "delete", group, version, resource, subresource: a.subresource || undefined, namespace: a.namespace || undefined, name: a.name });
      if (!ok) throw admissionForbidden(a, "cannot set an ownerRef on a resource you can't delete: , <nil>");
    }
    for (const ref of newBlockingRefs(a.object, a.oldObject)) {
      const apiVersion = str(ref.apiVersion);
      const slash = apiVersion.lastIndexOf("/");
      const group = slash < 0 ? "" : apiVersion.slice(0, slash);
      const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
      const ok = await this.ctx.authorize(a.userInfo, {
        verb: "update",
        group,
        version,
        resource: pluralOf(str(ref.kind)),
        subresource: "finalizers",
        namespace: a.namespace || undefined,
        name: str(ref.name),
      });
      if (!ok) throw admissionForbidden(a, "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>");
    }
  }
}

export const ownerReferencesPermissionEnforcementPlugin: PluginFactory = (ctx) => new OwnerReferencesPlugin(ctx);
