/**
 * The status of ValidatingAdmissionPolicies: once a replica has compiled a
 * policy generation it records `status.observedGeneration` and
 * `status.typeChecking` (expression warnings from type checking against the
 * matched kinds' schemas, type-check.ts) through the status subresource (no
 * admission). Every replica may try; a write that finds the generation already
 * observed does nothing.
 */
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { PluginContext } from "../interfaces.ts";
import { kindsToCheck, paramsSchema } from "./schemas.ts";
import { typeCheck } from "./type-check.ts";

/** `status.typeChecking` of a policy: its expression warnings, if any. */
async function typeChecking(ctx: PluginContext, policy: JsonObject): Promise<JsonObject> {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const warnings = typeCheck(spec, await kindsToCheck(ctx.profile, ctx.objects, spec), paramsSchema(ctx.profile, spec));
  return warnings.length > 0 ? { expressionWarnings: warnings } : {};
}

function generationOf(o: JsonObject): number | undefined {
  const g = (o.metadata as { generation?: unknown } | undefined)?.generation;
  return typeof g === "number" ? g : undefined;
}

function observed(o: JsonObject): unknown {
  return isObject(o.status) ? o.status.observedGeneration : undefined;
}

/** Records the observed generation of every listed policy that lacks it (best effort; failures are logged). */
export function recordObserved(ctx: PluginContext, group: string, items: readonly JsonObject[]): void {
  for (const item of items) {
    const generation = generationOf(item);
    if (generation === undefined || observed(item) === generation) continue;
    const name = String((item.metadata as { name?: unknown } | undefined)?.name ?? "");
    const write = typeChecking(ctx, item).then((checked) =>
      ctx.objects.update(
        { group, resource: "validatingadmissionpolicies", name },
        (current) => {
          const g = generationOf(current);
          if (g === undefined || observed(current) === g || g !== generation) return undefined;
          const status = isObject(current.status) ? current.status : {};
          return { ...current, status: { ...status, observedGeneration: g, typeChecking: checked } };
        },
        { subresource: "status" },
      ),
    );
    write.catch((err: unknown) => ctx.log("warn", "failed to record the observed generation of a policy", { policy: name, error: err instanceof Error ? err.message : String(err) }));
  }
}
