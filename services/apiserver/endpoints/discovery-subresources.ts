/**
 * What discovery says of a resource's verbs and of each subresource: its verbs
 * and the group, version and kind it answers with. Shared by the plain
 * (APIResourceList) and the aggregated (APIGroupDiscoveryList) documents so the
 * two always agree.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition, SubresourceName } from "../../../shared/schema/types.ts";

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const STORED_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

const SUBRESOURCE_VERBS: Readonly<Record<SubresourceName, readonly string[]>> = {
  status: ["get", "patch", "update"],
  scale: ["get", "patch", "update"],
  token: ["create"],
  eviction: ["create"],
  binding: ["create"],
  approval: ["get", "patch", "update"],
  finalize: ["update"],
  ephemeralcontainers: ["get", "patch", "update"],
  resize: ["get", "patch", "update"],
  log: ["get"],
  exec: ["create", "get"],
  attach: ["create", "get"],
  portforward: ["create", "get"],
  proxy: ["create", "delete", "get", "patch", "update"],
};

/** Verbs of the resource itself: the kind's own list, `create` for virtual kinds, else the stored verbs. */
export function resourceVerbs(def: KindDefinition): string[] {
  return [...(def.verbs ?? (def.virtual ? ["create"] : STORED_VERBS))];
}

export function subresourceVerbs(sub: SubresourceName): string[] {
  return [...SUBRESOURCE_VERBS[sub]];
}

/** The kind's own group, version and kind on the wire. */
export function kindOf(def: KindDefinition, profile: PlatformProfile): GroupVersionKind {
  return { group: profile.group(def.group), version: def.version, kind: def.kind };
}

/**
 * The kind a subresource answers with: Scale (autoscaling/v1), TokenRequest
 * (authentication/v1), Eviction (policy/v1), Binding and the connect options of
 * the core group, otherwise the parent's kind.
 */
export function subresourceKind(def: KindDefinition, sub: SubresourceName, profile: PlatformProfile): GroupVersionKind {
  const core = (kind: string): GroupVersionKind => ({ group: profile.group("core"), version: "v1", kind });
  switch (sub) {
    case "scale":
      return { group: profile.group("autoscaling"), version: "v1", kind: "Scale" };
    case "token":
      return { group: profile.group("authentication"), version: "v1", kind: "TokenRequest" };
    case "eviction":
      return { group: profile.group("policy"), version: "v1", kind: "Eviction" };
    case "binding":
      return core("Binding");
    case "exec":
      return core("PodExecOptions");
    case "attach":
      return core("PodAttachOptions");
    case "portforward":
      return core("PodPortForwardOptions");
    case "proxy":
      return core(`${def.kind}ProxyOptions`);
    default:
      return kindOf(def, profile);
  }
}
