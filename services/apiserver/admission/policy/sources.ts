/**
 * What the validating and the mutating policy plugins share: policies kept
 * current from the watch cache and compiled once per generation (status writes
 * do not recompile), bindings read into their common fields and kept sorted by
 * name.
 */
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { PluginContext } from "../interfaces.ts";
import { compiledMatch, type CompiledMatch } from "./match.ts";

export function nameOf(o: JsonObject): string {
  return String((o.metadata as { name?: unknown } | undefined)?.name ?? "");
}

function generationOf(o: JsonObject): string {
  const m = o.metadata as { generation?: unknown; uid?: unknown } | undefined;
  return `${String(m?.uid ?? "")}/${String(m?.generation ?? "")}`;
}

export interface BindingBase {
  name: string;
  policyName: string;
  paramRef?: JsonObject;
  match?: CompiledMatch;
}

export function bindingBase(o: JsonObject): BindingBase {
  const spec = isObject(o.spec) ? o.spec : {};
  return {
    name: nameOf(o),
    policyName: typeof spec.policyName === "string" ? spec.policyName : "",
    ...(isObject(spec.paramRef) ? { paramRef: spec.paramRef } : {}),
    ...(isObject(spec.matchResources) ? { match: compiledMatch(spec.matchResources) } : {}),
  };
}

export interface PolicySources<P, B> {
  policies(): ReadonlyMap<string, P>;
  bindings(): readonly B[];
  synced: Promise<void>;
  stop(): void;
}

/** Watches `<kind>` policies and `<kind>bindings`-style bindings of the admissionregistration group. */
export function watchPolicies<P, B extends { name: string }>(
  ctx: PluginContext,
  resources: { policies: string; bindings: string },
  compile: (o: JsonObject) => P,
  readBinding: (o: JsonObject) => B,
  onPolicies?: (items: readonly JsonObject[]) => void,
): PolicySources<P, B> {
  const group = ctx.profile.group("admissionregistration");
  const compiled = new Map<string, { generation: string; policy: P }>();
  let policies = new Map<string, P>();
  let bindings: B[] = [];
  const policyWatch = ctx.objects.watchList(group, resources.policies, (items) => {
    const next = new Map<string, P>();
    for (const o of items) {
      const name = nameOf(o);
      const seen = compiled.get(name);
      const policy = seen && seen.generation === generationOf(o) ? seen.policy : compile(o);
      compiled.set(name, { generation: generationOf(o), policy });
      next.set(name, policy);
    }
    for (const name of compiled.keys()) if (!next.has(name)) compiled.delete(name);
    policies = next;
    onPolicies?.(items);
  });
  const bindingWatch = ctx.objects.watchList(group, resources.bindings, (items) => {
    bindings = items.map(readBinding).sort((x, y) => x.name.localeCompare(y.name));
  });
  return {
    policies: () => policies,
    bindings: () => bindings,
    synced: Promise.all([policyWatch.synced, bindingWatch.synced]).then(() => undefined),
    stop: () => {
      policyWatch.stop();
      bindingWatch.stop();
    },
  };
}
