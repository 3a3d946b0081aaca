/** The `/version` route of a replica, reporting the emulation it runs at (see version.ts). */
import { jsonResponse } from "./encode.ts";
import type { NonResourceHandler } from "./non-resource.ts";
import { prettyParam } from "./query-bool.ts";
import { versionInfo, type EmulationInfo } from "./version.ts";

export function versionRoute(emulation: EmulationInfo): NonResourceHandler {
  const body = versionInfo(emulation);
  return (_req, url) => jsonResponse(body, 200, { pretty: prettyParam(url.searchParams) });
}
