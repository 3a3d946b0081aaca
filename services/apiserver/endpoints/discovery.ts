/**
 * Discovery documents: /api, /api/v1, /apis, /apis/{group}, /apis/{group}/{version}
 * (APIVersions, APIGroupList, APIGroup, APIResourceList) built from the catalog.
 */
import type { Catalog, GroupVersionEntry } from "../registry/catalog.ts";

const STORED_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

const SUBRESOURCE_VERBS: Record<string, string[]> = {
  status: ["get", "patch", "update"],
  scale: ["get", "patch", "update"],
  token: ["create"],
  eviction: ["create"],
  binding: ["create"],
  approval: ["get", "patch", "update"],
  finalize: ["update"],
  ephemeralcontainers: ["get", "patch", "update"],
  resize: ["get", "patch", "update"],
  log: ["get"],
  exec: ["create", "get"],
  attach: ["create", "get"],
  portforward: ["create", "get"],
  proxy: ["create", "delete", "get", "patch", "update"],
};

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

export function apiResourceList(gv: GroupVersionEntry) {
  const resources: Array<Record<string, unknown>> = [];
  for (const { resource } of gv.resources) {
    const def = resource.def;
    const entry: Record<string, unknown> = {
      name: def.plural,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: def.verbs ?? (def.virtual ? ["create"] : STORED_VERBS),
    };
    if (def.shortNames?.length) entry.shortNames = def.shortNames;
    if (def.categories?.length) entry.categories = def.categories;
    resources.push(entry);
    for (const sub of def.subresources ?? []) {
      const kind = sub === "scale" ? "Scale" : sub === "token" ? "TokenRequest" : sub === "eviction" ? "Eviction" : sub === "binding" ? "Binding" : def.kind;
      resources.push({ name: `${def.plural}/${sub}`, singularName: "", namespaced: def.namespaced, kind, verbs: SUBRESOURCE_VERBS[sub] ?? ["get"] });
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: gv.group ? `${gv.group}/${gv.version}` : gv.version, resources };
}
