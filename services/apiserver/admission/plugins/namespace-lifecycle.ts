/**
 * NamespaceLifecycle (mutating phase, like the platform's plugin): objects can be
 * written only in a namespace that exists (404 naming the namespace otherwise),
 * nothing new is created in a Terminating namespace (403 with the
 * NamespaceTerminating cause), and the default, system and public namespaces
 * cannot be deleted. Deletes of namespaced objects and writes of namespaces
 * themselves always pass; access reviews are never told about namespaces.
 */
import { forbiddenWithReason, notFound, statusError } from "../../../../shared/api/status.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext } from "../interfaces.ts";

export const NAMESPACE_LIFECYCLE = "NamespaceLifecycle";

function qualified(a: Attributes): string {
  return a.resource.group ? `${a.resource.resource}.${a.resource.group}` : a.resource.resource;
}

/** The 403 of a create in a namespace being deleted; undefined when `ns` is not terminating. */
function terminating(a: Attributes, ns: Readonly<JsonObject>): Error | undefined {
  const m = (ns.metadata ?? {}) as { deletionTimestamp?: string };
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  if (!m.deletionTimestamp && phase !== "Terminating") return undefined;
  const name = a.name;
  return statusError({
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
}

export function namespaceLifecycle(ctx: PluginContext): AdmissionPlugin {
  const core = ctx.profile.group("core");
  const authorization = ctx.profile.group("authorization");
  const immortal = new Set(["default", ctx.profile.systemNamespace, ctx.profile.publicNamespace]);
  // Namespaces deleted through this replica are looked up live for a while (the cache may lag).
  const forceLive = new Map<string, number>();
  const FORCE_LIVE_MS = 30_000;
  const check = (a: Attributes, ns: Readonly<JsonObject>): void => {
    if (a.operation !== "CREATE") return;
    const err = terminating(a, ns);
    if (err) throw err;
  };
  /** The cache's copy first, then a live read: for a namespace the cache has not seen yet (brand new) or that was just deleted. */
  const checkRead = async (a: Attributes, live: boolean): Promise<void> => {
    const ref = { group: core, resource: "namespaces", name: a.namespace };
    const ns = (live ? undefined : await ctx.objects.get(ref, { cached: true })) ?? (await ctx.objects.get(ref));
    if (!ns) throw notFound("namespaces", a.namespace);
    check(a, ns);
  };
  return {
    name: NAMESPACE_LIFECYCLE,
    handles: (op) => op === "CREATE" || op === "UPDATE" || op === "DELETE" || op === "CONNECT",
    // Synchronous when the watch cache holds the namespace (read in place, not copied): no promise, no turn.
    admit(a): Promise<void> | undefined {
      const isNamespace = a.resource.group === core && a.resource.resource === "namespaces";
      if (isNamespace) {
        if (a.operation === "DELETE" && immortal.has(a.name)) throw forbiddenWithReason("namespaces", a.name, "this namespace may not be deleted");
        if (a.operation === "DELETE") {
          const now = Date.now();
          for (const [n, until] of forceLive) if (until < now) forceLive.delete(n);
          forceLive.set(a.name, now + FORCE_LIVE_MS);
        }
        return undefined;
      }
      if (!a.namespaced || a.namespace === "" || a.operation === "DELETE") return undefined;
      if (a.resource.group === authorization && a.resource.resource === "localsubjectaccessreviews") return undefined;
      const live = forceLive.size > 0 && (forceLive.get(a.namespace) ?? 0) > Date.now();
      const cached = live ? undefined : ctx.objects.peek?.({ group: core, resource: "namespaces", name: a.namespace });
      if (!cached) return checkRead(a, live);
      check(a, cached);
      return undefined;
    },
  };
}
