/** The non-resource routes of a replica: discovery, version, and whatever the caller adds (health, OpenAPI, metrics). */
import type { Catalog } from "../registry/catalog.ts";
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from "./discovery.ts";
import { discoveryRootHandler } from "./discovery-serve.ts";
import { jsonResponse } from "./encode.ts";
import type { NonResourceHandler, NonResourceRoutes } from "./non-resource.ts";
import { versionInfo } from "./version.ts";

function pretty(url: URL): boolean {
  return url.searchParams.get("pretty") === "true";
}

export function discoveryRoutes(
  catalog: Catalog,
  serverAddress: () => string,
  extra: Array<[string, NonResourceHandler]> = [],
  prefixes: Array<[string, NonResourceHandler]> = [],
): NonResourceRoutes {
  const exact = new Map<string, NonResourceHandler>();
  // /api and /apis answer the aggregated document when the Accept header asks for it.
  exact.set("/api", discoveryRootHandler(catalog, "api", (_r, url) => jsonResponse(apiVersions(serverAddress()), 200, { pretty: pretty(url) })));
  exact.set("/apis", discoveryRootHandler(catalog, "apis", (_r, url) => jsonResponse(apiGroupList(catalog), 200, { pretty: pretty(url) })));
  exact.set("/version", (_r, url) => jsonResponse(versionInfo(), 200, { pretty: pretty(url) }));
  const core = catalog.groupVersion("", "v1");
  if (core) exact.set("/api/v1", (_r, url) => jsonResponse(apiResourceList(core, catalog), 200, { pretty: pretty(url) }));
  for (const group of catalog.groups()) {
    exact.set(`/apis/${group}`, (_r, url) => jsonResponse(apiGroup(catalog, group), 200, { pretty: pretty(url) }));
    for (const version of catalog.versionsOf(group)) {
      const gv = catalog.groupVersion(group, version);
      if (gv) exact.set(`/apis/${group}/${version}`, (_r, url) => jsonResponse(apiResourceList(gv, catalog), 200, { pretty: pretty(url) }));
    }
  }
  for (const [path, handler] of extra) exact.set(path, handler);
  return { exact, prefixes: [...prefixes].sort((a, b) => b[0].length - a[0].length) };
}
