/**
 * The parameter objects of one policy binding: none when the policy has no
 * paramKind; else by paramRef name or selector, in paramRef's namespace or, for
 * a namespaced parameter kind without one, the request's. Reads come from the
 * watch cache (a name not there yet is read once more from the store). An empty
 * result follows parameterNotFoundAction: Allow evaluates nothing, Deny is a
 * configuration error (ConfigError, decided by the failure policy).
 */
import { labelSelectorFromObject } from "../../../../shared/api/label-selector.ts";
import type { LabelSelector } from "../../../../shared/api/selector-types.ts";
import { builtinKinds } from "../../../../shared/api/groups/index.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { Attributes, ObjectAccess } from "../interfaces.ts";

/** A problem of the policy's or binding's configuration (failurePolicy decides). */
export class ConfigError extends Error {}

export interface ParamKind {
  apiVersion: string;
  kind: string;
}

interface ResolvedKind {
  group: string;
  resource: string;
  namespaced: boolean;
}

const kindCache = new WeakMap<PlatformProfile, Map<string, ResolvedKind>>();

function resolveKind(profile: PlatformProfile, pk: ParamKind): ResolvedKind | undefined {
  let byKey = kindCache.get(profile);
  if (!byKey) {
    byKey = new Map();
    for (const d of builtinKinds(profile)) {
      byKey.set(`${profile.apiVersion(d.group, d.version)}/${d.kind}`, { group: profile.group(d.group), resource: d.plural, namespaced: d.namespaced });
    }
    kindCache.set(profile, byKey);
  }
  return byKey.get(`${pk.apiVersion}/${pk.kind}`);
}

function labels(o: JsonObject): Record<string, string> {
  return (o.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {};
}

/** `[undefined]` when the policy takes no parameters; `[]` when nothing is to be evaluated (Allow). */
export async function resolveParams(profile: PlatformProfile, objects: ObjectAccess, paramKind: ParamKind | undefined, paramRef: JsonObject | undefined, a: Attributes): Promise<Array<JsonObject | undefined>> {
  if (!paramKind) return [undefined];
  if (!paramRef) throw new ConfigError(`paramKind kind \`${paramKind.kind}\` is specified but paramRef is not set`);
  const kind = resolveKind(profile, paramKind);
  if (!kind) throw new ConfigError(`failed to find resource referenced by paramKind: '${paramKind.apiVersion}, Kind=${paramKind.kind}'`);
  let namespace = "";
  if (kind.namespaced) {
    namespace = typeof paramRef.namespace === "string" && paramRef.namespace !== "" ? paramRef.namespace : a.namespace;
    if (namespace === "") throw new ConfigError("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources");
  }
  let found: JsonObject[] = [];
  if (typeof paramRef.name === "string" && paramRef.name !== "") {
    const ref = { group: kind.group, resource: kind.resource, name: paramRef.name, ...(namespace ? { namespace } : {}) };
    const obj = (await objects.get(ref, { cached: true })) ?? (await objects.get(ref));
    if (obj) found = [obj];
  } else {
    const sel = labelSelectorFromObject(isObject(paramRef.selector) ? (paramRef.selector as LabelSelector) : ({} as LabelSelector));
    const all = await objects.list(kind.group, kind.resource, namespace || undefined, { cached: true });
    found = all.filter((o) => sel.matches(labels(o)));
  }
  if (found.length > 0) return found;
  if (paramRef.parameterNotFoundAction === "Deny") throw new ConfigError("no params found for policy binding with `Deny` parameterNotFoundAction");
  return [];
}
