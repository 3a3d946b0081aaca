/**
 * Discovery of aggregated group versions (pure): the backend's APIResourceList (read by
 * the availability check from `/apis/<group>/<version>`) as an aggregated-discovery
 * version entry (resources with their subresources), and the group documents of the
 * aggregated groups ordered as the platform orders them: groups by their highest
 * `groupPriorityMinimum` (then name), versions by `versionPriority` (then version name).
 */
import type { ResourceDiscovery, SubresourceDiscovery, VersionDiscovery } from "../endpoints/discovery-aggregated.ts";
import { isObject, type JsonObject } from "../storage/object.ts";
import type { ApiServiceInfo } from "./api-service.ts";

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** `APIResourceList` → the resources of one version of aggregated discovery. */
export function versionFromResourceList(group: string, version: string, list: unknown, freshness: VersionDiscovery["freshness"] = "Current"): VersionDiscovery {
  const items = isObject(list) && Array.isArray(list.resources) ? list.resources.filter(isObject) : [];
  const resources = new Map<string, ResourceDiscovery>();
  const kindOf = (r: JsonObject) => ({ group: str(r.group) || group, version: str(r.version) || version, kind: str(r.kind) });
  for (const r of items) {
    const name = str(r.name);
    if (!name || name.includes("/")) continue;
    const doc: ResourceDiscovery = { resource: name, responseKind: kindOf(r), scope: r.namespaced === true ? "Namespaced" : "Cluster", singularResource: str(r.singularName), verbs: strs(r.verbs) };
    if (strs(r.shortNames).length > 0) doc.shortNames = strs(r.shortNames);
    if (strs(r.categories).length > 0) doc.categories = strs(r.categories);
    resources.set(name, doc);
  }
  for (const r of items) {
    const [parent, sub] = str(r.name).split("/");
    const owner = sub ? resources.get(parent) : undefined;
    if (!owner) continue;
    const entry: SubresourceDiscovery = { subresource: sub, responseKind: kindOf(r), verbs: strs(r.verbs) };
    (owner.subresources ??= []).push(entry);
  }
  return { version, resources: [...resources.values()], freshness };
}

/** The aggregated groups (those with at least one APIService with a service) and their versions, in the platform's order. */
export function orderedGroups(services: readonly ApiServiceInfo[]): Array<{ name: string; versions: ApiServiceInfo[] }> {
  const byGroup = new Map<string, ApiServiceInfo[]>();
  for (const s of services) {
    if (!s.service) continue;
    const list = byGroup.get(s.group) ?? [];
    list.push(s);
    byGroup.set(s.group, list);
  }
  const groups = [...byGroup.entries()].map(([name, versions]) => ({
    name,
    priority: Math.max(...versions.map((v) => v.groupPriorityMinimum)),
    versions: [...versions].sort((a, b) => b.versionPriority - a.versionPriority || a.version.localeCompare(b.version)),
  }));
  groups.sort((a, b) => b.priority - a.priority || a.name.localeCompare(b.name));
  return groups.map(({ name, versions }) => ({ name, versions }));
}
