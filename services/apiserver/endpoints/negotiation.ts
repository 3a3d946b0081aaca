/**
 * Content negotiation: `Accept` parsing and choice of the response media type,
 * `Content-Type` parsing for request bodies, and patch types.
 *
 * Rules (the platform's, made deterministic):
 * - `Accept` clauses are ordered by q (highest first), then specificity
 *   (`type/subtype` before `type/*` before `*\/*`), then header order; q=0
 *   clauses are refused types and never chosen.
 * - For each clause in that order the server's offered types are tried in the
 *   server's preference order (json, yaml, protobuf, cbor); the first offered
 *   type that matches and whose parameters the endpoint allows wins.
 * - Parameters: `as`/`g`/`v` ask for a conversion (Table, PartialObjectMetadata,
 *   PartialObjectMetadataList in the meta group, v1 or v1beta1); `stream=watch`
 *   needs a type with a stream form; `pretty=1` asks for indentation; others are
 *   recorded as unrecognized and ignored.
 * - No acceptable type gives 406 NotAcceptable listing the offered types.
 * Pure: the profile supplies the protobuf media type and the meta group.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { notAcceptable, unsupportedMediaType } from "../../../shared/api/status.ts";

export const JSON_MEDIA_TYPE = "application/json";
export const YAML_MEDIA_TYPE = "application/yaml";
export const CBOR_MEDIA_TYPE = "application/cbor";
export const CBOR_SEQ_MEDIA_TYPE = "application/cbor-seq";

export const JSON_PATCH_MEDIA_TYPE = "application/json-patch+json";
export const MERGE_PATCH_MEDIA_TYPE = "application/merge-patch+json";
export const STRATEGIC_MERGE_PATCH_MEDIA_TYPE = "application/strategic-merge-patch+json";
export const APPLY_PATCH_YAML_MEDIA_TYPE = "application/apply-patch+yaml";
export const APPLY_PATCH_CBOR_MEDIA_TYPE = "application/apply-patch+cbor";

/** One clause of an `Accept` header. */
export interface MediaRange {
  type: string;
  subtype: string;
  /** Parameters other than q; keys lowercased, values as sent (unquoted). */
  params: Record<string, string>;
  q: number;
}

export type Encoding = "json" | "yaml" | "protobuf" | "cbor";

/** A media type the server can produce or consume. */
export interface OfferedType {
  encoding: Encoding;
  mediaType: string;
  /** The type has a watch stream form. */
  streamable: boolean;
}

export interface NegotiationOptions {
  profile: PlatformProfile;
  /** Protobuf is offered (not for custom resources or aggregated types). Default true. */
  protobuf?: boolean;
  /** CBOR is offered (the `CBORServingAndStorage` gate). Default false. */
  cbor?: boolean;
  /** The endpoint streams watch events: only types with a stream form are offered. */
  watch?: boolean;
  /** Conversions the endpoint can perform (resource get/list endpoints). */
  conversion?: { table?: boolean; partialObjectMetadata?: boolean };
}

/** The conversion a client asked for with `as`, `g` and `v`. */
export interface ConversionTarget {
  kind: "Table" | "PartialObjectMetadata" | "PartialObjectMetadataList";
  group: string;
  version: string;
}

export interface Negotiated {
  encoding: Encoding;
  /** The chosen media type without parameters (`application/json`). */
  mediaType: string;
  target?: ConversionTarget;
  /** `stream=watch` was asked for. */
  stream: boolean;
  pretty: boolean;
  /** Parameters the server did not understand (ignored). */
  unrecognized: string[];
}

// ---------------------------------------------------------------------------
// Parsing

/** Splits on `sep` outside double quotes. */
function splitOutsideQuotes(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"') quoted = !quoted;
    if (c === "\\" && quoted && i + 1 < s.length) {
      cur += c + s[++i];
      continue;
    }
    if (c === sep && !quoted) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, "$1");
  return v;
}

function parseParams(parts: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const p of parts) {
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    if (key) params[key] = unquote(p.slice(eq + 1).trim());
  }
  return params;
}

function specificity(r: MediaRange): number {
  return (r.type === "*" ? 0 : 2) + (r.subtype === "*" ? 0 : 1);
}

/**
 * Parses an `Accept` header into clauses sorted by preference. Malformed
 * clauses and clauses with q=0 are dropped; `*` alone means `*\/*`.
 */
export function parseAccept(header: string): MediaRange[] {
  const ranges: Array<MediaRange & { index: number }> = [];
  splitOutsideQuotes(header, ",").forEach((clause, index) => {
    const [range, ...paramParts] = splitOutsideQuotes(clause, ";");
    const r = range.trim().toLowerCase();
    if (!r) return;
    const slash = r.indexOf("/");
    let type: string;
    let subtype: string;
    if (slash < 0) {
      if (r !== "*") return;
      type = "*";
      subtype = "*";
    } else {
      type = r.slice(0, slash).trim();
      subtype = r.slice(slash + 1).trim();
      if (!type || !subtype || subtype.includes("/") || (type === "*" && subtype !== "*")) return;
    }
    const params = parseParams(paramParts);
    let q = 1;
    if ("q" in params) {
      const parsed = Number(params.q);
      q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      delete params.q;
    }
    if (q <= 0) return;
    ranges.push({ type, subtype, params, q, index });
  });
  ranges.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.index - b.index);
  return ranges.map(({ type, subtype, params, q }) => ({ type, subtype, params, q }));
}

export interface ContentType {
  /** `type/subtype`, lowercased. */
  mediaType: string;
  params: Record<string, string>;
  charset?: string;
}

/** Parses a `Content-Type` value (`application/json; charset=utf-8`); undefined when malformed. */
export function parseContentType(header: string): ContentType | undefined {
  const [range, ...paramParts] = splitOutsideQuotes(header, ";");
  const mediaType = range.trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mediaType)) return undefined;
  const params = parseParams(paramParts);
  const ct: ContentType = { mediaType, params };
  if (params.charset !== undefined) ct.charset = params.charset.toLowerCase();
  return ct;
}

// ---------------------------------------------------------------------------
// Offers

/** The server's types in preference order for these options. */
/** `watch` (default `opts.watch`): only the types with a stream form. */
export function offeredTypes(opts: NegotiationOptions, watch = opts.watch): OfferedType[] {
  const types: OfferedType[] = [{ encoding: "json", mediaType: JSON_MEDIA_TYPE, streamable: true }];
  types.push({ encoding: "yaml", mediaType: YAML_MEDIA_TYPE, streamable: false });
  if (opts.protobuf !== false) types.push({ encoding: "protobuf", mediaType: opts.profile.protobufMediaType, streamable: true });
  if (opts.cbor) types.push({ encoding: "cbor", mediaType: CBOR_MEDIA_TYPE, streamable: true });
  return watch ? types.filter((t) => t.streamable) : types;
}

/** The media types named in a 406 answer: the stream forms for watches. */
export function acceptedMediaTypes(opts: NegotiationOptions): string[] {
  return offeredTypes(opts).map((t) => (opts.watch ? streamMediaType(t) : t.mediaType));
}

function streamMediaType(t: OfferedType): string {
  if (t.encoding === "cbor") return CBOR_SEQ_MEDIA_TYPE;
  return `${t.mediaType};stream=watch`;
}

function typeMatches(range: MediaRange, offered: OfferedType): boolean {
  const slash = offered.mediaType.indexOf("/");
  const type = offered.mediaType.slice(0, slash);
  const subtype = offered.mediaType.slice(slash + 1);
  if (range.type === "*") return true;
  return range.type === type && (range.subtype === "*" || range.subtype === subtype);
}

const CONVERSION_KINDS = new Set(["Table", "PartialObjectMetadata", "PartialObjectMetadataList"]);

/** Options for one offered type under the clause's parameters, or undefined when the endpoint refuses them. */
function accept(range: MediaRange, offered: OfferedType, opts: NegotiationOptions): Negotiated | undefined {
  const out: Negotiated = { encoding: offered.encoding, mediaType: offered.mediaType, stream: false, pretty: false, unrecognized: [] };
  let as: string | undefined;
  let g: string | undefined;
  let v: string | undefined;
  for (const [k, value] of Object.entries(range.params)) {
    switch (k) {
      case "as":
        as = value;
        break;
      case "g":
        g = value;
        break;
      case "v":
        v = value;
        break;
      case "stream":
        if (value !== "") {
          if (!offered.streamable || value !== "watch") return undefined;
          out.stream = true;
        }
        break;
      case "pretty":
        out.pretty = value === "1";
        break;
      case "charset":
        if (value.toLowerCase() !== "utf-8") return undefined;
        break;
      default:
        out.unrecognized.push(k);
    }
  }
  if (as !== undefined || g !== undefined || v !== undefined) {
    const kind = as ?? "";
    if (!CONVERSION_KINDS.has(kind) || g !== opts.profile.metaGroup || (v !== "v1" && v !== "v1beta1")) return undefined;
    if (kind === "Table") {
      if (!opts.conversion?.table || (offered.encoding !== "json" && offered.encoding !== "yaml")) return undefined;
    } else if (!opts.conversion?.partialObjectMetadata) return undefined;
    out.target = { kind: kind as ConversionTarget["kind"], group: g, version: v };
  }
  return out;
}

// Per-request memos: clients send a handful of distinct `Accept` headers and endpoints
// differ in a few options, so both are parsed or built once and only read afterwards.
// The header memo is capped (the text is the client's) and starts over when full.
const MAX_MEMO_ACCEPT = 256;
const acceptMemo = new Map<string, readonly MediaRange[]>();
const offeredMemo = new Map<string, readonly OfferedType[]>();

function memoParseAccept(header: string): readonly MediaRange[] {
  let ranges = acceptMemo.get(header);
  if (!ranges) {
    ranges = parseAccept(header);
    if (acceptMemo.size >= MAX_MEMO_ACCEPT) acceptMemo.clear();
    acceptMemo.set(header, ranges);
  }
  return ranges;
}

function memoOfferedTypes(opts: NegotiationOptions): readonly OfferedType[] {
  const key = `${opts.protobuf !== false}|${!!opts.cbor}|${!!opts.watch}|${opts.profile.protobufMediaType}`;
  let types = offeredMemo.get(key);
  if (!types) offeredMemo.set(key, (types = offeredTypes(opts)));
  return types;
}

/**
 * Chooses the response type for an `Accept` header (absent or empty: JSON).
 * Throws a 406 NotAcceptable `StatusError` when nothing offered is acceptable.
 */
export function negotiateOutput(acceptHeader: string | undefined | null, opts: NegotiationOptions): Negotiated {
  const offered = memoOfferedTypes(opts);
  if (!acceptHeader || acceptHeader.trim() === "") {
    return { encoding: offered[0].encoding, mediaType: offered[0].mediaType, stream: false, pretty: false, unrecognized: [] };
  }
  for (const range of memoParseAccept(acceptHeader)) {
    for (const t of offered) {
      if (!typeMatches(range, t)) continue;
      const n = accept(range, t, opts);
      if (n) return n;
    }
  }
  throw notAcceptable(acceptedMediaTypes(opts));
}

/** The `Content-Type` of a response: watch streams add `;stream=watch` (JSON keeps its plain type; CBOR is a sequence). */
export function responseContentType(n: Pick<Negotiated, "encoding" | "mediaType">, watch = false): string {
  if (!watch || n.encoding === "json") return n.mediaType;
  if (n.encoding === "cbor") return CBOR_SEQ_MEDIA_TYPE;
  return `${n.mediaType};stream=watch`;
}

// ---------------------------------------------------------------------------
// Request bodies

export interface InputType {
  encoding: Encoding;
  mediaType: string;
  charset?: string;
}

/**
 * The decoder for a request body's `Content-Type` (absent: JSON). Throws a 415
 * UnsupportedMediaType `StatusError` for anything the server does not read.
 */
export function negotiateInput(contentType: string | undefined | null, opts: NegotiationOptions): InputType {
  const offered = offeredTypes(opts, false);
  if (!contentType || contentType.trim() === "") return { encoding: "json", mediaType: JSON_MEDIA_TYPE };
  const ct = parseContentType(contentType);
  const match = ct && offered.find((t) => t.mediaType === ct.mediaType);
  if (!ct || !match) throw unsupportedMediaType(offered.map((t) => t.mediaType));
  const out: InputType = { encoding: match.encoding, mediaType: match.mediaType };
  if (ct.charset !== undefined) out.charset = ct.charset;
  return out;
}

export type PatchType = "json" | "merge" | "strategic" | "apply";

export interface PatchFormat {
  type: PatchType;
  mediaType: string;
  /** Body encoding: JSON for the JSON patch types, YAML or CBOR for apply. */
  encoding: "json" | "yaml" | "cbor";
}

export interface PatchOptions {
  /** Strategic merge patch is served (built-in kinds; not custom resources). Default true. */
  strategic?: boolean;
  /** CBOR apply is served (the CBOR gate). Default false. */
  cbor?: boolean;
}

/** The patch media types a resource accepts, in the platform's order. */
export function patchMediaTypes(opts: PatchOptions = {}): string[] {
  const types = [JSON_PATCH_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE];
  if (opts.strategic !== false) types.push(STRATEGIC_MERGE_PATCH_MEDIA_TYPE);
  types.push(APPLY_PATCH_YAML_MEDIA_TYPE);
  if (opts.cbor) types.push(APPLY_PATCH_CBOR_MEDIA_TYPE);
  return types;
}

const PATCH_FORMATS: Readonly<Record<string, PatchFormat>> = {
  [JSON_PATCH_MEDIA_TYPE]: { type: "json", mediaType: JSON_PATCH_MEDIA_TYPE, encoding: "json" },
  [MERGE_PATCH_MEDIA_TYPE]: { type: "merge", mediaType: MERGE_PATCH_MEDIA_TYPE, encoding: "json" },
  [STRATEGIC_MERGE_PATCH_MEDIA_TYPE]: { type: "strategic", mediaType: STRATEGIC_MERGE_PATCH_MEDIA_TYPE, encoding: "json" },
  [APPLY_PATCH_YAML_MEDIA_TYPE]: { type: "apply", mediaType: APPLY_PATCH_YAML_MEDIA_TYPE, encoding: "yaml" },
  [APPLY_PATCH_CBOR_MEDIA_TYPE]: { type: "apply", mediaType: APPLY_PATCH_CBOR_MEDIA_TYPE, encoding: "cbor" },
};

/** The patch type of a PATCH request's `Content-Type`; throws 415 for others. */
export function patchTypeOf(contentType: string | undefined | null, opts: PatchOptions = {}): PatchFormat {
  const allowed = patchMediaTypes(opts);
  const ct = contentType ? parseContentType(contentType) : undefined;
  if (!ct || !allowed.includes(ct.mediaType)) throw unsupportedMediaType(allowed);
  return PATCH_FORMATS[ct.mediaType];
}
