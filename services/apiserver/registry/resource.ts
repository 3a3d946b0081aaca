/**
 * What the registry and the handlers know of one served resource: its kind
 * definition plus the wire names the profile gives it, and its storage keys.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";

export interface ResourceInfo {
  def: KindDefinition;
  /** Wire group ("" for core). */
  group: string;
  version: string;
  /** `v1` or `<group>/<version>`. */
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** Storage key prefix ending with "/": `/registry/<groupKey>/<plural>/`. */
  keyPrefix: string;
}

export const REGISTRY_ROOT = "/registry/";

export function resourceInfo(def: KindDefinition, profile: PlatformProfile): ResourceInfo {
  return {
    def,
    group: profile.group(def.group),
    version: def.version,
    apiVersion: profile.apiVersion(def.group, def.version),
    kind: def.kind,
    plural: def.plural,
    namespaced: def.namespaced,
    keyPrefix: `${REGISTRY_ROOT}${def.group}/${def.plural}/`,
  };
}

/** Key of one object. Namespaced: `<prefix><ns>/<name>`; cluster-scoped: `<prefix><name>`. */
export function objectKey(r: ResourceInfo, namespace: string | undefined, name: string): string {
  return r.namespaced ? `${r.keyPrefix}${namespace ?? ""}/${name}` : `${r.keyPrefix}${name}`;
}

/** Prefix of a collection: all namespaces when `namespace` is empty. */
export function collectionPrefix(r: ResourceInfo, namespace: string | undefined): string {
  return r.namespaced && namespace ? `${r.keyPrefix}${namespace}/` : r.keyPrefix;
}
