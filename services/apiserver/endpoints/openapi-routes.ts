/**
 * /openapi/v2 and /openapi/v3 (the index and one document per group version),
 * generated once from the typed schema and served as JSON. Clients that ask for
 * the protobuf form of v2 get 406 and fall back to JSON.
 * With aggregated servers: v2 merges their documents in (aggregator/openapi-merge.ts),
 * the v3 index lists their group versions with the backends' hashes, and such a
 * group version's document comes from its backend.
 */
import { createHash } from "node:crypto";
import { deleteOptions, listMeta, status } from "../../../shared/api/groups/meta-v1.ts";
import { scaleKindSchema } from "../../../shared/api/groups/autoscaling-v1.ts";
import { notAcceptable, notFound } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { openapiV2, openapiV3 } from "../../../shared/schema/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { mergeOpenApiV2 } from "../aggregator/openapi-merge.ts";
import type { NonResourceHandler } from "./non-resource.ts";

const COMMON = { common: { listMeta, status, deleteOptions, scale: scaleKindSchema } };

function json(text: string, etag: string): Response {
  return new Response(text, { status: 200, headers: { "content-type": "application/json", etag: `"${etag}"` } });
}

function hashOf(text: string): string {
  return createHash("sha512").update(text).digest("hex").slice(0, 128).toUpperCase();
}

/** Kinds that change at run time (custom resources): `generation` changes whenever `kinds()` does. */
export interface KindSource {
  kinds(): KindDefinition[];
  readonly generation: number;
}

/** The documents of aggregated servers (aggregator/openapi.ts): `generation` changes whenever they do. */
export interface AggregatedOpenApiSource {
  readonly generation: number;
  v2Documents(): Array<Record<string, unknown>>;
  /** `apis/<group>/<version>` → the backend's hash. */
  v3Paths(): Map<string, string>;
  v3Document(path: string): Promise<{ text: string; hash: string } | undefined>;
}

export function openapiRoutes(source: KindDefinition[] | KindSource, profile: PlatformProfile, aggregated?: AggregatedOpenApiSource): { exact: Array<[string, NonResourceHandler]>; prefix: [string, NonResourceHandler] } {
  let v2: { text: string; hash: string } | undefined;
  const v3 = new Map<string, { text: string; hash: string }>();
  const groupVersions = new Map<string, { group: KindDefinition["group"]; version: string }>();
  let kinds: KindDefinition[] = [];
  let generation = "";
  // Documents are built on first use and rebuilt after the kinds (or the aggregated documents) changed.
  const refresh = (): void => {
    const current = `${Array.isArray(source) ? 0 : source.generation}/${aggregated?.generation ?? 0}`;
    if (current === generation) return;
    generation = current;
    kinds = Array.isArray(source) ? source : source.kinds();
    v2 = undefined;
    v3.clear();
    groupVersions.clear();
    for (const k of kinds) {
      const wire = profile.group(k.group);
      const path = wire === "" ? `api/${k.version}` : `apis/${wire}/${k.version}`;
      groupVersions.set(path, { group: k.group, version: k.version });
    }
  };
  const v3doc = (path: string) => {
    refresh();
    let doc = v3.get(path);
    if (!doc) {
      const gv = groupVersions.get(path);
      if (!gv) return undefined;
      const text = JSON.stringify(openapiV3(kinds, profile, gv.group, gv.version, COMMON));
      doc = { text, hash: hashOf(text) };
      v3.set(path, doc);
    }
    return doc;
  };
  const v2Handler: NonResourceHandler = (req) => {
    const accept = req.headers.get("accept") ?? "";
    if (accept && !/application\/json|\*\/\*|application\/\*/.test(accept)) throw notAcceptable(["application/json"]);
    refresh();
    if (!v2) {
      const own = openapiV2(kinds, profile, COMMON);
      const remote = aggregated?.v2Documents() ?? [];
      const text = JSON.stringify(remote.length > 0 ? mergeOpenApiV2(own, remote) : own);
      v2 = { text, hash: hashOf(text) };
    }
    return json(v2.text, v2.hash);
  };
  const v3Index: NonResourceHandler = () => {
    refresh();
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const path of groupVersions.keys()) {
      const doc = v3doc(path);
      if (doc) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.hash}` };
    }
    for (const [path, hash] of aggregated?.v3Paths() ?? []) if (!paths[path]) paths[path] = { serverRelativeURL: `/openapi/v3/${path}${hash ? `?hash=${hash}` : ""}` };
    return new Response(JSON.stringify({ paths }), { status: 200, headers: { "content-type": "application/json" } });
  };
  const v3Handler: NonResourceHandler = async (_req, url) => {
    const path = url.pathname.slice("/openapi/v3/".length).replace(/\/+$/, "");
    const doc = v3doc(path) ?? (aggregated?.v3Paths().has(path) ? await aggregated.v3Document(path) : undefined);
    if (!doc) throw notFound("", path);
    return json(doc.text, doc.hash);
  };
  return {
    exact: [
      ["/openapi/v2", v2Handler],
      ["/openapi/v3", v3Index],
    ],
    prefix: ["/openapi/v3/", v3Handler],
  };
}
