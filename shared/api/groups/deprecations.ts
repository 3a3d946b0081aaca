/**
 * Lifecycle of the built-in group versions that the platform has deprecated, for the
 * kinds this server serves (release 1.35): the release that deprecated each one, the
 * release that stops serving it (when planned) and its replacement. The `Warning`
 * text of a request to one is worded as the platform's server words it:
 *   `<apiVersion> <Kind> is deprecated in v1.X+[, unavailable in v1.Y+][; use <apiVersion> <Kind>]`
 */
import type { GroupKey, PlatformProfile } from "../../platform/index.ts";

export interface KindRef {
  group: GroupKey;
  version: string;
  kind: string;
}

export interface ApiLifecycle extends KindRef {
  /** `major.minor` of the release that deprecated it. */
  deprecatedIn: string;
  /** `major.minor` of the first release that no longer serves it. */
  removedIn?: string;
  replacement?: KindRef;
}

export const BUILTIN_DEPRECATIONS: readonly ApiLifecycle[] = [
  // The Endpoints API was deprecated in favour of EndpointSlice; no removal is planned.
  { group: "core", version: "v1", kind: "Endpoints", deprecatedIn: "1.33", replacement: { group: "discovery", version: "v1", kind: "EndpointSlice" } },
  // ComponentStatus (when served): deprecated without replacement or removal.
  { group: "core", version: "v1", kind: "ComponentStatus", deprecatedIn: "1.19" },
  // Betas introduced in 1.31: the default lifecycle (deprecated three releases after, removed three more after), no replacement named.
  { group: "networking", version: "v1beta1", kind: "IPAddress", deprecatedIn: "1.34", removedIn: "1.37" },
  { group: "networking", version: "v1beta1", kind: "ServiceCIDR", deprecatedIn: "1.34", removedIn: "1.37" },
  { group: "storage", version: "v1beta1", kind: "VolumeAttributesClass", deprecatedIn: "1.34", removedIn: "1.37" },
  // The alpha of 1.29, served only when emulating 1.34 or earlier.
  { group: "storage", version: "v1alpha1", kind: "VolumeAttributesClass", deprecatedIn: "1.32", removedIn: "1.35" },
];

/** The lifecycle entry of a kind in a group version, when it is deprecated. */
export function deprecationOf(ref: KindRef, table: readonly ApiLifecycle[] = BUILTIN_DEPRECATIONS): ApiLifecycle | undefined {
  return table.find((d) => d.group === ref.group && d.version === ref.version && d.kind === ref.kind);
}

/** The warning text (without the `299 - "…"` framing). */
export function deprecationWarningText(profile: PlatformProfile, d: ApiLifecycle): string {
  let msg = `${profile.apiVersion(d.group, d.version)} ${d.kind} is deprecated in v${d.deprecatedIn}+`;
  if (d.removedIn) msg += `, unavailable in v${d.removedIn}+`;
  if (d.replacement) msg += `; use ${profile.apiVersion(d.replacement.group, d.replacement.version)} ${d.replacement.kind}`;
  return msg;
}
