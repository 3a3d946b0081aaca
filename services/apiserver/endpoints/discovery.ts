/**
 * Discovery documents: /api, /api/v1, /apis, /apis/{group}, /apis/{group}/{version}
 * (APIVersions, APIGroupList, APIGroup, APIResourceList) built from the catalog.
 */
import type { Catalog, GroupVersionEntry } from "../registry/catalog.ts";
import { resourceVerbs, subresourceKind, subresourceVerbs } from "./discovery-subresources.ts";

export function apiVersions(serverAddress: string) {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

function groupDoc(catalog: Catalog, group: string) {
  const versions = catalog.versionsOf(group).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

export function apiGroupList(catalog: Catalog) {
  return { kind: "APIGroupList", apiVersion: "v1", groups: catalog.groups().map((g) => groupDoc(catalog, g)) };
}

export function apiGroup(catalog: Catalog, group: string) {
  return { kind: "APIGroup", apiVersion: "v1", ...groupDoc(catalog, group) };
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
