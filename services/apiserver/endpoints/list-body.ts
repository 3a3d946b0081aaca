/**
 * A list response streamed item by item in the negotiated encoding and form (the
 * list itself, a Table, PartialObjectMetadataList): the envelope, then each item
 * rendered and encoded when the client is ready for it, in slices of bounded work
 * that yield to other requests between them (chunked-stream.ts), so a list's memory
 * is its item references plus about one chunk, whatever its size, and a large list
 * never holds the thread for more than a slice.
 * The bytes equal those of rendering and encoding the whole list (render.ts,
 * encode.ts). Items keep their bytes from the encoded cache where a GET or a list
 * already made them; a compact JSON list adds the bytes of the items it encodes, up to
 * the cache's budget for lists (encoded-cache.ts), and so does a protobuf list (each
 * item's bytes as a GET encodes it), so the next list of the same objects
 * copies bytes instead of encoding them again (a list flood turns its seats over sooner).
 *
 * A list that fits in its first slice is answered as one buffer at once (no stream,
 * no extra turn); a longer one writes its chunks to the node response itself
 * (list-body-writer.ts: no ReadableStream read per chunk, a chunk's pieces in one
 * corked write instead of copied into one buffer), or, when a filter replaced the body or
 * there is no node response, is read as a stream. Each list encodes its own body: sharing one encoding among
 * identical lists in flight was tried and let the joined readers write without the
 * per-turn budget, which doubled other tenants' p99 under a list flood
 * (`bench -- apf`).
 */
import { ChunkProducer, processTurnBudget, producerStream, type Piece } from "../../../shared/codec/chunked-stream.ts";
import { cborCollection, jsonCollection, yamlCollection, type CollectionParts } from "../../../shared/codec/collection-stream.ts";
import { encodeObject } from "../../../shared/codec/protobuf/index.ts";
import { protobufListBody } from "../../../shared/codec/protobuf/list-stream.ts";
import { jsonListPieces, typedItemText } from "../../../shared/stream/json-list.ts";
import { tableRow, toTable } from "../../../shared/codec/table.ts";
import type { JsonObject } from "../storage/object.ts";
import { offerDirectBody } from "./direct-body.ts";
import { bodyContentType, bodyResponse, jsonText } from "./encode.ts";
import { encodedForList, encodedIfCached, objectVariant } from "./encoded-cache.ts";
import { ListBodyWriter } from "./list-body-writer.ts";
import { includeObject, partialMetadata } from "./render.ts";
import type { RequestScope } from "./scope.ts";

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/**
 * Bytes of one socket write of a list body: large enough that a 10,000-item list takes
 * a few dozen writes (each a wait for the socket to drain) rather than hundreds, small
 * enough that encrypting one stays well under a millisecond or two. The work between
 * writes stays bounded by the shared per-turn budget of chunked-stream.ts.
 */
export const LIST_CHUNK_BYTES = 256 * 1024;
/** Bytes a list chunk holds before its time slice may end it (about a third of a millisecond of JSON). */
export const LIST_MIN_CHUNK_BYTES = 64 * 1024;
/**
 * Bytes a list's first chunk holds at most when the turn's list budget is already spent:
 * a list that small is answered at once, a larger one goes on under the budget.
 */
export const LIST_FIRST_CHUNK_BYTES = 64 * 1024;

/** Items are the objects as stored or cached (no apiVersion/kind); they are not mutated. */
export async function listResponse(s: RequestScope, metadata: ListMeta, items: ReadonlyArray<Readonly<JsonObject>>): Promise<Response> {
  const contentType = bodyContentType(s, "list");
  const producer = new ChunkProducer(listPieces(s, metadata, items), processTurnBudget, { chunkBytes: LIST_CHUNK_BYTES, minChunkBytes: LIST_MIN_CHUNK_BYTES, firstChunkBytes: LIST_FIRST_CHUNK_BYTES });
  const first = await producer.next();
  if (producer.finished) return bodyResponse(s, first ?? new Uint8Array(0), contentType, 200);
  const stream = producerStream(producer, first);
  // Written by the list itself once the response reaches the node server unchanged; read as a stream otherwise (compressed, in process).
  if (s.request) offerDirectBody(s.request, stream, new ListBodyWriter(producer, first));
  return bodyResponse(s, stream, contentType, 200);
}

function withTypeMeta(s: RequestScope, obj: Readonly<JsonObject>): JsonObject {
  return { apiVersion: s.resource.apiVersion, kind: s.resource.kind, ...obj };
}

function listPieces(s: RequestScope, metadata: ListMeta, items: ReadonlyArray<Readonly<JsonObject>>): Iterator<Piece> {
  const meta: Record<string, unknown> = { ...metadata };
  const kind = s.target?.kind;
  if (kind === "Table") return encodeParts(s, tableParts(s, meta, items));
  if (kind === "PartialObjectMetadataList" || kind === "PartialObjectMetadata") {
    return encodeParts(s, {
      envelope: { kind: "PartialObjectMetadataList", apiVersion: `${s.profile.metaGroup}/v1`, metadata: meta },
      arrayKey: "items",
      count: items.length,
      element: (i) => partialMetadata(s, items[i]),
    });
  }
  if (s.encoding === "protobuf") {
    // An item's bytes are a GET's (the whole object in its envelope), kept as compact JSON lists keep theirs.
    const variant = objectVariant(s);
    const whole = (i: number) => () => encodeObject(s.resource.def, withTypeMeta(s, items[i]), s.profile);
    return protobufListBody(s.resource.def, s.profile, { metadata: meta, count: items.length, item: (i) => items[i], cached: (i) => encodedForList(items[i], variant, whole(i)) });
  }
  const variant = objectVariant(s);
  if (s.encoding === "json" && !s.pretty && bodyContentType(s, "list") === "application/json") {
    const typeMeta = { apiVersion: s.resource.apiVersion, kind: s.resource.kind };
    const typeHead = compactJson(typeMeta).slice(0, -1);
    const itemBytes = (i: number) => () => utf8.encode(typedItemText(typeHead, typeMeta, items[i], compactJson));
    return jsonListPieces({
      envelope: { kind: `${s.resource.kind}List`, apiVersion: s.resource.apiVersion, metadata: meta },
      arrayKey: "items",
      typeMeta,
      count: items.length,
      item: (i) => items[i],
      cached: (i) => encodedForList(items[i], variant, itemBytes(i)),
      text: compactJson,
    });
  }
  const reusable = s.encoding === "cbor";
  return encodeParts(s, {
    envelope: { kind: `${s.resource.kind}List`, apiVersion: s.resource.apiVersion, metadata: meta },
    arrayKey: "items",
    count: items.length,
    element: (i) => withTypeMeta(s, items[i]),
    cached: reusable ? (i) => encodedIfCached(items[i], variant) : undefined,
  });
}

function tableParts(s: RequestScope, metadata: Record<string, unknown>, items: ReadonlyArray<Readonly<JsonObject>>): CollectionParts {
  const opts = { profile: s.profile, includeObject: includeObject(s), now: Date.now() };
  const { rows: _rows, ...envelope } = toTable(s.resource.def, { metadata, items: [] }, opts);
  const order = s.resource.def.tableRowOrder;
  const rows = order ? [...items].sort(order) : items;
  return {
    envelope,
    arrayKey: "rows",
    count: rows.length,
    element: (i) => tableRow(s.resource.def, withTypeMeta(s, rows[i]), opts, opts.now),
  };
}

const compactJson = (value: unknown): string => jsonText(value, false);
const utf8 = new TextEncoder();

/** JSON, YAML or CBOR of a collection in the scope's encoding (as encodeBody chooses for a non-protobuf body). */
function encodeParts(s: RequestScope, parts: CollectionParts): Iterator<Piece> {
  if (s.encoding === "cbor") return cborCollection(parts);
  if (bodyContentType(s, "list") === "application/yaml") return yamlCollection(parts);
  return jsonCollection(parts, jsonText, s.pretty);
}
