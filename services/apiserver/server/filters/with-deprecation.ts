/**
 * Signals the use of a deprecated built-in API, as the platform's server does for every
 * request that reaches a deprecated group version's handler (so after authorization):
 *   - a `Warning: 299 - "<apiVersion> <Kind> is deprecated in v1.X+…"` header,
 *   - `apiserver_requested_deprecated_apis{group,version,resource,subresource,removed_release}` set to 1,
 *   - the audit annotations `<domain>/deprecated: "true"` and, when a removal release is
 *     planned, `<domain>/removed-release: "1.Y"` on the request's audit event.
 * Deprecated custom resource versions get the metric and the annotation here too; their
 * warning (the CRD's own text) comes from the dispatcher. A built-in API counts as
 * deprecated only from its deprecating release on, compared with the release the
 * replica emulates (`--emulated-version`), as the platform's compatibility versions do:
 * emulating an earlier release gives none of the three signals.
 */
import type { Gauge } from "prom-client";
import { deprecationOf, deprecationWarningText, type ApiLifecycle, type KindRef } from "../../../../shared/api/groups/deprecations.ts";
import { parseMinorVersion } from "../../../../shared/observability/metrics.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { warningHeader } from "../../endpoints/scope.ts";
import type { Catalog } from "../../registry/catalog.ts";
import { infoOf, type Filter, type RequestContext } from "./context.ts";

export type DeprecatedApisGauge = Gauge<"group" | "version" | "resource" | "subresource" | "removed_release">;

export interface DeprecationDeps {
  profile: PlatformProfile;
  catalog: Catalog;
  gauge?: DeprecatedApisGauge;
  /** The release the replica emulates (none: every listed deprecation applies). */
  emulationVersion?: { major: number; minor: number };
}

/** Whether the API was already deprecated at `at` (its deprecating release is not after it). Pure. */
export function deprecatedAt(lifecycle: ApiLifecycle, at: { major: number; minor: number } | undefined): boolean {
  if (!at) return true;
  const since = parseMinorVersion(lifecycle.deprecatedIn);
  return since.major < at.major || (since.major === at.major && since.minor <= at.minor);
}

/** The audit annotation keys of the profile (`<domain>/deprecated`, `<domain>/removed-release`). */
export function deprecationAnnotationKeys(profile: PlatformProfile): { deprecated: string; removedRelease: string } {
  const deprecated = profile.annotations.deprecatedAudit;
  return { deprecated, removedRelease: deprecated.replace(/deprecated$/, "removed-release") };
}

/** A built-in definition's lifecycle entry (null: none), looked up once per definition (the table is fixed). */
const lifecycles = new WeakMap<object, ApiLifecycle | null>();

function lifecycleOf(def: KindRef): ApiLifecycle | undefined {
  let lifecycle = lifecycles.get(def);
  if (lifecycle === undefined) {
    lifecycle = deprecationOf({ group: def.group, version: def.version, kind: def.kind }) ?? null;
    lifecycles.set(def, lifecycle);
  }
  return lifecycle ?? undefined;
}

/** Records the signals of a deprecated API on the request; returns whether it was one. */
export function signalDeprecation(deps: DeprecationDeps, ctx: RequestContext): boolean {
  const info = ctx.info;
  if (!info?.isResourceRequest) return false;
  const served = deps.catalog.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!served) return false;
  const def = served.resource.def;
  let removed = "";
  if (def.custom) {
    // A deprecated custom resource version: its warning comes from the dispatcher.
    if (!def.deprecated) return false;
  } else {
    const lifecycle = lifecycleOf(def);
    if (!lifecycle || !deprecatedAt(lifecycle, deps.emulationVersion)) return false;
    ctx.warnings.push(warningHeader(deprecationWarningText(deps.profile, lifecycle)));
    removed = lifecycle.removedIn ?? "";
  }
  deps.gauge?.set({ group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, removed_release: removed }, 1);
  if (ctx.audit) {
    const keys = deprecationAnnotationKeys(deps.profile);
    const annotations = (ctx.audit.annotations ??= {});
    annotations[keys.deprecated] = "true";
    if (removed) annotations[keys.removedRelease] = removed;
  }
  return true;
}

export function withDeprecation(deps: DeprecationDeps): Filter {
  return (next) => (ctx) => {
    if (infoOf(ctx).isResourceRequest) signalDeprecation(deps, ctx);
    return next(ctx);
  };
}
