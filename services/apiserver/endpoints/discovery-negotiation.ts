/**
 * Which discovery document a request to /api or /apis gets: the aggregated
 * APIGroupDiscoveryList when an `Accept` clause asks for it with
 * `as=APIGroupDiscoveryList;g=apidiscovery.<domain>;v=v2|v2beta1`, else the plain
 * document (APIVersions / APIGroupList).
 *
 * Clauses are taken in the order of `parseAccept` (q, then specificity, then
 * header order). For each clause the encodings json, yaml and protobuf are tried
 * in that order; the first match decides:
 * - a clause without `as`/`g`/`v` picks the plain document;
 * - a clause asking for the aggregated kind in a served version picks it in that
 *   encoding (`stream` and a charset other than utf-8 refuse the clause);
 * - a clause asking for anything else is skipped.
 * Nothing chosen (or no `Accept`): the plain document, which is served whatever
 * the header says (its handler does not negotiate).
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { ApidiscoveryVersion } from "../../../shared/api/groups/apidiscovery-v2.ts";
import { JSON_MEDIA_TYPE, YAML_MEDIA_TYPE, parseAccept, type MediaRange } from "./negotiation.ts";
import { AGGREGATED_KIND } from "./discovery-aggregated.ts";

export type AggregatedEncoding = "json" | "yaml" | "protobuf";

export interface AggregatedChoice {
  aggregated: true;
  version: ApidiscoveryVersion;
  encoding: AggregatedEncoding;
  /** The media type without parameters. */
  mediaType: string;
  pretty: boolean;
}

export type DiscoveryChoice = { aggregated: false } | AggregatedChoice;

const PLAIN: DiscoveryChoice = { aggregated: false };

function offered(profile: PlatformProfile): Array<{ encoding: AggregatedEncoding; mediaType: string }> {
  return [
    { encoding: "json", mediaType: JSON_MEDIA_TYPE },
    { encoding: "yaml", mediaType: YAML_MEDIA_TYPE },
    { encoding: "protobuf", mediaType: profile.protobufMediaType },
  ];
}

function matches(range: MediaRange, mediaType: string): boolean {
  if (range.type === "*") return true;
  const [type, subtype] = mediaType.split("/");
  return range.type === type && (range.subtype === "*" || range.subtype === subtype);
}

/** The served apidiscovery version a clause asks for, undefined for another conversion, null for none. */
function askedVersion(params: Record<string, string>, profile: PlatformProfile): ApidiscoveryVersion | undefined | null {
  if (params.as === undefined && params.g === undefined && params.v === undefined) return null;
  if (params.as !== AGGREGATED_KIND || params.g !== profile.group("apidiscovery")) return undefined;
  return params.v === "v2" || params.v === "v2beta1" ? params.v : undefined;
}

export function chooseDiscovery(accept: string | null | undefined, profile: PlatformProfile): DiscoveryChoice {
  if (!accept || accept.trim() === "") return PLAIN;
  for (const range of parseAccept(accept)) {
    const version = askedVersion(range.params, profile);
    if (version === null) {
      if (offered(profile).some((t) => matches(range, t.mediaType))) return PLAIN;
      continue;
    }
    if (version === undefined) continue;
    if ((range.params.stream ?? "") !== "") continue;
    if (range.params.charset !== undefined && range.params.charset.toLowerCase() !== "utf-8") continue;
    const t = offered(profile).find((o) => matches(range, o.mediaType));
    if (t) return { aggregated: true, version, encoding: t.encoding, mediaType: t.mediaType, pretty: range.params.pretty === "1" };
  }
  return PLAIN;
}

/** `Content-Type` of an aggregated answer: the media type with the same `g`, `v` and `as` parameters. */
export function aggregatedContentType(choice: AggregatedChoice, profile: PlatformProfile): string {
  return `${choice.mediaType};g=${profile.group("apidiscovery")};v=${choice.version};as=${AGGREGATED_KIND}`;
}
