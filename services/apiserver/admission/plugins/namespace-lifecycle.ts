/**
 * NamespaceLifecycle (mutating phase, like the platform's plugin): objects can be
 * written only in a namespace that exists (404 naming the namespace otherwise),
 * nothing new is created in a Terminating namespace (403 with the
 * NamespaceTerminating cause), and the default, system and public namespaces
 * cannot be deleted. Deletes of namespaced objects and writes of namespaces
 * themselves always pass; access reviews are never told about namespaces.
 */
import { forbiddenWithReason, notFound, statusError } from "../../../../shared/api/status.ts";
import type { AdmissionPlugin, Attributes, PluginContext } from "../interfaces.ts";

export const NAMESPACE_LIFECYCLE = "NamespaceLifecycle";

function qualified(a: Attributes): string {
  return a.resource.group ? `${a.resource.resource}.${a.resource.group}` : a.resource.resource;
}

export function namespaceLifecycle(ctx: PluginContext): AdmissionPlugin {
  const core = ctx.profile.group("core");
  const authorization = ctx.profile.group("authorization");
  const immortal = new Set(["default", ctx.profile.systemNamespace, ctx.profile.publicNamespace]);
  // Namespaces deleted through this replica are looked up live for a while (the cache may lag).
  const forceLive = new Map<string, number>();
  const FORCE_LIVE_MS = 30_000;
  return {
    name: NAMESPACE_LIFECYCLE,
    handles: (op) => op === "CREATE" || op === "UPDATE" || op === "DELETE" || op === "CONNECT",
    async admit(a) {
      const isNamespace = a.resource.group === core && a.resource.resource === "namespaces";
      if (isNamespace) {
        if (a.operation === "DELETE" && immortal.has(a.name)) throw forbiddenWithReason("namespaces", a.name, "this namespace may not be deleted");
        if (a.operation === "DELETE") {
          const now = Date.now();
          for (const [n, until] of forceLive) if (until < now) forceLive.delete(n);
          forceLive.set(a.name, now + FORCE_LIVE_MS);
        }
        return;
      }
      if (!a.namespaced || a.namespace === "" || a.operation === "DELETE") return;
      if (a.resource.group === authorization && a.resource.resource === "localsubjectaccessreviews") return;
      // The cache first; a namespace it does not have yet (brand new) or that was just deleted is looked up live.
      const ref = { group: core, resource: "namespaces", name: a.namespace };
      const live = (forceLive.get(a.namespace) ?? 0) > Date.now();
      const ns = (live ? undefined : await ctx.objects.get(ref, { cached: true })) ?? (await ctx.objects.get(ref));
      if (!ns) throw notFound("namespaces", a.namespace);
      if (a.operation !== "CREATE") return;
      const m = (ns.metadata ?? {}) as { deletionTimestamp?: string };
      const phase = (ns.status as { phase?: string } | undefined)?.phase;
      if (!m.deletionTimestamp && phase !== "Terminating") return;
      const name = a.name;
      throw statusError({
        code: 403,
        reason: "Forbidden",
        message: `${qualified(a)} "${name}" is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`,
        details: {
          name,
          group: a.resource.group,
          kind: a.resource.resource,
          causes: [{ reason: "NamespaceTerminating", message: `namespace ${a.namespace} is being terminated`, field: "metadata.namespace" }],
        },
      });
    },
  };
}
