/** The non-resource routes of a replica: discovery, version, and whatever the caller adds (health, OpenAPI, metrics). */
import { statusError } from "../../../shared/api/status.ts";
import type { AggregatedGroups } from "../aggregator/aggregator.ts";
import type { Catalog } from "../registry/catalog.ts";
import { apiGroup, apiGroupList, apiResourceList, apiVersions, hasGroup } from "./discovery.ts";
import { discoveryRootHandler } from "./discovery-serve.ts";
import { jsonResponse } from "./encode.ts";
import type { NonResourceHandler, NonResourceRoutes } from "./non-resource.ts";
import { prettyParam } from "./query-bool.ts";
import { versionInfo } from "./version.ts";

function pretty(url: URL): boolean {
  return prettyParam(url.searchParams);
}

export function discoveryRoutes(
  catalog: Catalog,
  serverAddress: () => string,
  extra: Array<[string, NonResourceHandler]> = [],
  prefixes: Array<[string, NonResourceHandler]> = [],
  aggregated?: AggregatedGroups,
): NonResourceRoutes {
  const exact = new Map<string, NonResourceHandler>();
  // /api and /apis answer the aggregated document when the Accept header asks for it.
  exact.set("/api", discoveryRootHandler(catalog, "api", (_r, url) => jsonResponse(apiVersions(serverAddress()), 200, { pretty: pretty(url) })));
  exact.set("/apis", discoveryRootHandler(catalog, "apis", (_r, url) => jsonResponse(apiGroupList(catalog, aggregated), 200, { pretty: pretty(url) }), aggregated));
  exact.set("/version", (_r, url) => jsonResponse(versionInfo(), 200, { pretty: pretty(url) }));
  const core = catalog.groupVersion("", "v1");
  if (core) exact.set("/api/v1", (_r, url) => jsonResponse(apiResourceList(core, catalog), 200, { pretty: pretty(url) }));
  for (const group of catalog.groups()) {
    exact.set(`/apis/${group}`, (_r, url) => jsonResponse(apiGroup(catalog, group, aggregated), 200, { pretty: pretty(url) }));
    for (const version of catalog.versionsOf(group)) {
      const gv = catalog.groupVersion(group, version);
      if (gv) exact.set(`/apis/${group}/${version}`, (_r, url) => jsonResponse(apiResourceList(gv, catalog), 200, { pretty: pretty(url) }));
    }
  }
  for (const [path, handler] of extra) exact.set(path, handler);
  // Groups added at run time (custom resources, aggregated servers): /apis/{group} and /apis/{group}/{version}.
  const dynamicGroups: NonResourceHandler = (_r, url) => {
    const [group, version, ...rest] = url.pathname.slice("/apis/".length).replace(/\/+$/, "").split("/");
    if (rest.length === 0 && group && hasGroup(catalog, group, aggregated)) {
      if (version === undefined) return jsonResponse(apiGroup(catalog, group, aggregated), 200, { pretty: pretty(url) });
      const gv = catalog.groupVersion(group, version);
      if (gv) return jsonResponse(apiResourceList(gv, catalog), 200, { pretty: pretty(url) });
    }
    throw statusError({ code: 404, reason: "NotFound", message: "the server could not find the requested resource", details: { causes: [{ reason: "UnexpectedServerResponse", message: "404 page not found" }] } });
  };
  return { exact, prefixes: [...prefixes, ["/apis/", dynamicGroups] as [string, NonResourceHandler]].sort((a, b) => b[0].length - a[0].length) };
}
