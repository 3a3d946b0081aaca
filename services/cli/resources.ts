/**
 * Resource types as a user names them, resolved through discovery (/api, /apis and
 * every group version's resource list): plural, singular, short names and kinds, with
 * an optional `.group` or `.version.group` suffix (`deployments.apps`,
 * `deploy.v1.apps`). Names resolve to the group's preferred version unless a version
 * is given. Objects from files resolve by apiVersion and kind.
 */
import type { PathGetter, ResourceRef } from "../../shared/client/object-client.ts";

export interface ResourceInfo extends ResourceRef {
  kind: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  verbs: string[];
  categories: string[];
  preferred: boolean;
}

interface RawResource {
  name: string;
  singularName?: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

export class UnknownResourceError extends Error {}

export class ResourceResolver {
  private constructor(readonly all: ResourceInfo[]) {}

  static async discover(api: PathGetter): Promise<ResourceResolver> {
    const core = (await api.getPath("/api")) as { versions?: string[] };
    const groups = (await api.getPath("/apis")) as { groups?: Array<{ name: string; versions: Array<{ version: string }>; preferredVersion?: { version: string } }> };
    const jobs: Array<Promise<ResourceInfo[]>> = [];
    const load = async (path: string, group: string, version: string, preferred: boolean): Promise<ResourceInfo[]> => {
      let list: { resources?: RawResource[] };
      try {
        list = (await api.getPath(path)) as { resources?: RawResource[] };
      } catch {
        // A group version that cannot be read (an unavailable aggregated API) is left out, as discovery does.
        return [];
      }
      return (list.resources ?? [])
        .filter((r) => !r.name.includes("/"))
        .map((r) => ({
          group,
          version,
          resource: r.name,
          kind: r.kind,
          singular: r.singularName || r.kind.toLowerCase(),
          shortNames: r.shortNames ?? [],
          namespaced: r.namespaced,
          verbs: r.verbs ?? [],
          categories: r.categories ?? [],
          preferred,
        }));
    };
    for (const v of core.versions ?? []) jobs.push(load(`/api/${v}`, "", v, v === core.versions?.[0]));
    for (const g of groups.groups ?? []) {
      const preferred = g.preferredVersion?.version ?? g.versions[0]?.version;
      for (const v of g.versions) jobs.push(load(`/apis/${g.name}/${v.version}`, g.name, v.version, v.version === preferred));
    }
    return new ResourceResolver((await Promise.all(jobs)).flat());
  }

  /** The resource a user typed (`cm`, `deployments.apps`, `deploy.v1.apps`, `Deployment`). */
  resolve(typed: string): ResourceInfo {
    const text = typed.toLowerCase();
    const matches = (r: ResourceInfo, name: string) => r.resource === name || r.singular === name || r.shortNames.includes(name) || r.kind.toLowerCase() === name;
    const candidates: Array<(r: ResourceInfo) => boolean> = [(r) => r.preferred && matches(r, text)];
    const parts = text.split(".");
    for (let i = 1; i < parts.length; i++) {
      const name = parts.slice(0, i).join(".");
      const rest = parts.slice(i).join(".");
      candidates.push((r) => r.preferred && matches(r, name) && r.group === rest);
      const [version, ...group] = parts.slice(i);
      candidates.push((r) => matches(r, name) && r.version === version && r.group === group.join("."));
    }
    for (const pick of candidates) {
      const found = this.all.filter(pick);
      if (found.length > 0) return found.sort((a, b) => groupRank(a.group) - groupRank(b.group))[0];
    }
    throw new UnknownResourceError(`the server doesn't have a resource type "${typed}"`);
  }

  /** The resource serving objects of `apiVersion`/`kind`. */
  forKind(apiVersion: string, kind: string): ResourceInfo {
    const slash = apiVersion.lastIndexOf("/");
    const group = slash >= 0 ? apiVersion.slice(0, slash) : "";
    const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
    const found = this.all.find((r) => r.group === group && r.version === version && r.kind === kind);
    if (!found) throw new UnknownResourceError(`resource mapping not found for name: kind "${kind}" in version "${apiVersion}": ensure CRDs are installed first`);
    return found;
  }
}

/** The core group first, then groups without a dot (the platform's older groups), as discovery orders them. */
function groupRank(group: string): number {
  if (group === "") return 0;
  return group.includes(".") ? 2 : 1;
}

/** `configmap`, `deployment.apps`: how kubectl names a kind in messages. */
export function kindLabel(r: Pick<ResourceInfo, "kind" | "group">): string {
  return r.group ? `${r.kind.toLowerCase()}.${r.group}` : r.kind.toLowerCase();
}

/** `configmaps`, `deployments.apps`: a resource with its group. */
export function resourceLabel(r: Pick<ResourceInfo, "resource" | "group">): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}
