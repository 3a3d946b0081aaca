/**
 * Aggregated discovery documents (APIGroupDiscoveryList): every group with its
 * versions (preferred first) and each version's resources with their
 * subresources, in one body. `/api` holds the core group alone (name ""), `/apis`
 * the named groups in the order of the plain APIGroupList.
 *
 * The items are version independent; `aggregatedList` adds the list's
 * `apiVersion` (v2 or v2beta1, which have the same fields).
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { ApidiscoveryVersion } from "../../../shared/api/groups/apidiscovery-v2.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import type { AggregatedGroups } from "../aggregator/aggregator.ts";
import type { Catalog, GroupVersionEntry } from "../registry/catalog.ts";
import { kindOf, resourceVerbs, subresourceKind, subresourceVerbs, type GroupVersionKind } from "./discovery-subresources.ts";

export const AGGREGATED_KIND = "APIGroupDiscoveryList";

export interface SubresourceDiscovery {
  subresource: string;
  responseKind: GroupVersionKind;
  verbs: string[];
}

export interface ResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: "Cluster" | "Namespaced";
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: SubresourceDiscovery[];
}

export interface VersionDiscovery {
  version: string;
  resources: ResourceDiscovery[];
  freshness: "Current" | "Stale";
}

export interface GroupDiscovery {
  metadata: { name: string };
  versions: VersionDiscovery[];
}

export interface GroupDiscoveryList {
  kind: typeof AGGREGATED_KIND;
  apiVersion: string;
  metadata: Record<string, never>;
  items: GroupDiscovery[];
}

/** Which document: `/api` (core) or `/apis` (named groups). */
export type DiscoveryRoot = "api" | "apis";

function resourceDoc(def: KindDefinition, profile: PlatformProfile): ResourceDiscovery {
  const doc: ResourceDiscovery = {
    resource: def.plural,
    responseKind: kindOf(def, profile),
    scope: def.namespaced ? "Namespaced" : "Cluster",
    singularResource: def.singular,
    verbs: resourceVerbs(def),
  };
  if (def.shortNames?.length) doc.shortNames = [...def.shortNames];
  if (def.categories?.length) doc.categories = [...def.categories];
  const subs = (def.subresources ?? []).map((sub) => ({ subresource: sub, responseKind: subresourceKind(def, sub, profile), verbs: subresourceVerbs(sub) }));
  if (subs.length > 0) doc.subresources = subs;
  return doc;
}

function versionDoc(gv: GroupVersionEntry, profile: PlatformProfile): VersionDiscovery {
  return { version: gv.version, resources: gv.resources.map(({ resource }) => resourceDoc(resource.def, profile)), freshness: "Current" };
}

function groupDoc(catalog: Catalog, group: string): GroupDiscovery {
  const versions: VersionDiscovery[] = [];
  for (const version of catalog.versionsOf(group)) {
    const gv = catalog.groupVersion(group, version);
    if (gv) versions.push(versionDoc(gv, catalog.profile));
  }
  return { metadata: { name: group }, versions };
}

/** The groups of one document; versions are in preference order (catalog.versionsOf), aggregated servers' after this server's. */
export function aggregatedItems(catalog: Catalog, root: DiscoveryRoot, aggregated?: AggregatedGroups): GroupDiscovery[] {
  if (root === "api") return catalog.versionsOf("").length > 0 ? [groupDoc(catalog, "")] : [];
  const items = catalog.groups().map((g) => groupDoc(catalog, g));
  for (const remote of aggregated?.groups() ?? []) {
    let item = items.find((i) => i.metadata.name === remote.name);
    if (!item) items.push((item = { metadata: { name: remote.name }, versions: [] }));
    for (const v of remote.versions) {
      // A version whose discovery was never read is listed Stale and empty, as the platform lists it.
      if (!item.versions.some((x) => x.version === v.version)) item.versions.push(v.discovery ?? { version: v.version, resources: [], freshness: "Stale" });
    }
  }
  return items;
}

export function aggregatedList(items: GroupDiscovery[], profile: PlatformProfile, version: ApidiscoveryVersion): GroupDiscoveryList {
  return { kind: AGGREGATED_KIND, apiVersion: profile.apiVersion("apidiscovery", version), metadata: {}, items };
}
