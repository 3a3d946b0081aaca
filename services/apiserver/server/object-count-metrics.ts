/**
 * The stored-object counts the platform exports per resource: apiserver_resource_objects
 * {group, resource} (ALPHA) and the deprecated apiserver_storage_objects{resource}
 * (STABLE, deprecated in 1.34, `resource` as `<plural>.<group>` or the plural for the core
 * group). Read from the watch cache's per-prefix counts when /metrics is scraped (a map
 * lookup per resource), so there is no timer. A resource served in several versions (or,
 * like Event, in several groups over one storage) is counted once, under the first served
 * form of its storage keys. Kinds without stored objects (reviews, ComponentStatus) are
 * left out.
 */
import type { Gauge } from "prom-client";
import type { Catalog, ServedResource } from "../registry/catalog.ts";

export interface ObjectCountGauges {
  storageObjects: Gauge<"resource">;
  resourceObjects: Gauge<"group" | "resource">;
}

function isStored(served: ServedResource): boolean {
  const def = served.resource.def;
  return !def.virtual && (def.verbs === undefined || def.verbs.includes("create"));
}

/** Sets both gauges from the current counts; resources no longer served are dropped. */
export function refreshObjectCounts(gauges: ObjectCountGauges, catalog: Catalog, count: (keyPrefix: string) => number): void {
  gauges.storageObjects.reset();
  gauges.resourceObjects.reset();
  const seen = new Set<string>();
  for (const served of catalog.all()) {
    const { keyPrefix, group, plural } = served.resource;
    if (!isStored(served) || seen.has(keyPrefix)) continue;
    seen.add(keyPrefix);
    const n = count(keyPrefix);
    gauges.storageObjects.set({ resource: group === "" ? plural : `${plural}.${group}` }, n);
    gauges.resourceObjects.set({ group, resource: plural }, n);
  }
}
