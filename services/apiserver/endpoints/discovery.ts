/**
 * Discovery documents: /api, /api/v1, /apis, /apis/{group}, /apis/{group}/{version}
 * (APIVersions, APIGroupList, APIGroup, APIResourceList) built from the catalog.
 */
import type { AggregatedGroups } from "../aggregator/aggregator.ts";
import type { Catalog, GroupVersionEntry } from "../registry/catalog.ts";
import { resourceVerbs, subresourceKind, subresourceVerbs } from "./discovery-subresources.ts";

export function apiVersions(serverAddress: string) {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

/** Versions of a group: this server's, then those of aggregated servers (APIServices with a service). */
function versionNames(catalog: Catalog, group: string, aggregated?: AggregatedGroups): string[] {
  const local = catalog.versionsOf(group);
  const remote = aggregated?.groups().find((g) => g.name === group)?.versions.map((v) => v.version) ?? [];
  return [...local, ...remote.filter((v) => !local.includes(v))];
}

function groupDoc(catalog: Catalog, group: string, aggregated?: AggregatedGroups) {
  const versions = versionNames(catalog, group, aggregated).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

/** Every group: this server's, then the aggregated groups it does not serve itself. */
export function groupNames(catalog: Catalog, aggregated?: AggregatedGroups): string[] {
  const local = catalog.groups();
  return [...local, ...(aggregated?.groups().map((g) => g.name) ?? []).filter((g) => !local.includes(g))];
}

export function apiGroupList(catalog: Catalog, aggregated?: AggregatedGroups) {
  return { kind: "APIGroupList", apiVersion: "v1", groups: groupNames(catalog, aggregated).map((g) => groupDoc(catalog, g, aggregated)) };
}

export function apiGroup(catalog: Catalog, group: string, aggregated?: AggregatedGroups) {
  return { kind: "APIGroup", apiVersion: "v1", ...groupDoc(catalog, group, aggregated) };
}

/** True when `group` is served here or by an aggregated server. */
export function hasGroup(catalog: Catalog, group: string, aggregated?: AggregatedGroups): boolean {
  return versionNames(catalog, group, aggregated).length > 0;
}

export function apiResourceList(gv: GroupVersionEntry, catalog: Catalog) {
  const resources: Array<Record<string, unknown>> = [];
  for (const { resource } of gv.resources) {
    const def = resource.def;
    const entry: Record<string, unknown> = {
      name: def.plural,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: resourceVerbs(def),
    };
    if (def.shortNames?.length) entry.shortNames = def.shortNames;
    if (def.categories?.length) entry.categories = def.categories;
    resources.push(entry);
    for (const sub of def.subresources ?? []) {
      const gvk = subresourceKind(def, sub, catalog.profile);
      const subEntry: Record<string, unknown> = { name: `${def.plural}/${sub}`, singularName: "", namespaced: def.namespaced };
      // group and version only when the subresource answers in another group version (scale, token, eviction).
      if (gvk.group !== gv.group || gvk.version !== gv.version) Object.assign(subEntry, { group: gvk.group, version: gvk.version });
      resources.push({ ...subEntry, kind: gvk.kind, verbs: subresourceVerbs(sub) });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: gv.group ? `${gv.group}/${gv.version}` : gv.version, resources };
}
