/**
 * Serves /api and /apis: the aggregated document when the `Accept` header asks
 * for it (discovery-negotiation.ts), else the plain handler's answer.
 *
 * An aggregated answer carries `Content-Type` with the asked `g`/`v`/`as`,
 * `Vary: Accept`, `Cache-Control: public` and an `ETag`: the quoted SHA-512 (hex)
 * of the items' JSON, the same for every version and encoding (`Vary` keeps
 * caches apart). `If-None-Match` naming the current ETag (or `*`) gives 304 with
 * no body. Each document and its encodings are built on first use and again after
 * the catalog changes (custom resources added or removed).
 */
import { createHash } from "node:crypto";
import { apidiscoverySchemas, type ApidiscoveryVersion } from "../../../shared/api/groups/apidiscovery-v2.ts";
import { encodeEnvelope, encodeMessage, messageLayout } from "../../../shared/codec/protobuf/index.ts";
import type { AggregatedGroups } from "../aggregator/aggregator.ts";
import type { Catalog } from "../registry/catalog.ts";
import { AGGREGATED_KIND, aggregatedItems, aggregatedList, type DiscoveryRoot, type GroupDiscovery } from "./discovery-aggregated.ts";
import { aggregatedContentType, chooseDiscovery, type AggregatedChoice } from "./discovery-negotiation.ts";
import { encodeText } from "./encode.ts";
import type { NonResourceHandler } from "./non-resource.ts";
import { prettyParam } from "./query-bool.ts";

interface Document {
  items: GroupDiscovery[];
  /** Quoted. */
  etag: string;
  bodies: Map<string, string | Uint8Array>;
}

function etagOf(items: GroupDiscovery[]): string {
  return `"${createHash("sha512").update(JSON.stringify(items)).digest("hex").toUpperCase()}"`;
}

/** True when `If-None-Match` lists the ETag (weak or strong) or is `*`. */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const tag = part.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

function encodeBody(doc: Document, catalog: Catalog, choice: AggregatedChoice): string | Uint8Array {
  const list = aggregatedList(doc.items, catalog.profile, choice.version);
  if (choice.encoding === "protobuf") {
    const version: ApidiscoveryVersion = choice.version;
    const layout = messageLayout(apidiscoverySchemas(version).groupList, AGGREGATED_KIND, { group: "apidiscovery", version });
    return encodeEnvelope({ apiVersion: list.apiVersion, kind: AGGREGATED_KIND, raw: encodeMessage(layout, { ...list }) });
  }
  return encodeText(list, choice.mediaType, choice.pretty);
}

/** The /api or /apis handler: aggregated when asked for, `plain` otherwise. */
export function discoveryRootHandler(catalog: Catalog, root: DiscoveryRoot, plain: NonResourceHandler, aggregated?: AggregatedGroups): NonResourceHandler {
  let doc: Document | undefined;
  let generation = "";
  const load = (): Document => {
    // Rebuilt when resources were added or removed at run time (custom resources, aggregated servers).
    const now = `${catalog.generation}/${aggregated?.generation ?? 0}`;
    if (!doc || generation !== now) {
      generation = now;
      const items = aggregatedItems(catalog, root, aggregated);
      doc = { items, etag: etagOf(items), bodies: new Map() };
    }
    return doc;
  };
  return (req, url, info, user) => {
    const choice = chooseDiscovery(req.headers.get("accept"), catalog.profile);
    if (!choice.aggregated) return plain(req, url, info, user);
    if (prettyParam(url.searchParams)) choice.pretty = true;
    const d = load();
    const headers = new Headers({ etag: d.etag, vary: "Accept", "cache-control": "public" });
    if (ifNoneMatchHits(req.headers.get("if-none-match"), d.etag)) return new Response(null, { status: 304, headers });
    const key = `${choice.version}/${choice.encoding}/${choice.pretty}`;
    let body = d.bodies.get(key);
    if (body === undefined) {
      body = encodeBody(d, catalog, choice);
      d.bodies.set(key, body);
    }
    headers.set("content-type", aggregatedContentType(choice, catalog.profile));
    return new Response(body, { status: 200, headers });
  };
}
