/**
 * Discovery on /api and /apis (the unaggregated documents): which resources exist in
 * which group versions, their kinds, scope and verbs, and each group's preferred
 * version. Subresources (`pods/status`) are left out.
 */
import type { PathGetter, ResourceRef } from "./object-client.ts";

export interface DiscoveredResource extends ResourceRef {
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /** True in the group's preferred version. */
  preferred: boolean;
}

interface ApiResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }>;
}
interface ApiGroupList {
  groups?: Array<{ name: string; versions: Array<{ version: string }>; preferredVersion?: { version: string } }>;
}

async function resourcesOf(api: PathGetter, path: string, group: string, version: string, preferred: boolean): Promise<DiscoveredResource[]> {
  const list = (await api.getPath(path)) as ApiResourceList;
  return (list.resources ?? [])
    .filter((r) => !r.name.includes("/"))
    .map((r) => ({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [], preferred }));
}

/** Every resource of every served group version. */
export async function discoverResources(api: PathGetter): Promise<DiscoveredResource[]> {
  const core = (await api.getPath("/api")) as { versions?: string[] };
  const groups = (await api.getPath("/apis")) as ApiGroupList;
  const jobs: Array<Promise<DiscoveredResource[]>> = [];
  for (const v of core.versions ?? []) jobs.push(resourcesOf(api, `/api/${v}`, "", v, v === core.versions?.[0]));
  for (const g of groups.groups ?? []) {
    const preferred = g.preferredVersion?.version ?? g.versions[0]?.version;
    for (const v of g.versions) jobs.push(resourcesOf(api, `/apis/${g.name}/${v.version}`, g.name, v.version, v.version === preferred));
  }
  return (await Promise.all(jobs)).flat();
}

/** Resources that offer every one of `verbs`, in their group's preferred version only. */
export function preferredWithVerbs(all: DiscoveredResource[], verbs: string[]): DiscoveredResource[] {
  return all.filter((r) => r.preferred && verbs.every((v) => r.verbs.includes(v)));
}

/** Finds the resource serving `apiVersion`/`kind` (owner references name kinds, not resources). */
export class KindIndex {
  private readonly byKind = new Map<string, DiscoveredResource>();

  constructor(all: DiscoveredResource[]) {
    for (const r of all) {
      const key = `${r.group ? `${r.group}/${r.version}` : r.version}|${r.kind}`;
      if (!this.byKind.has(key)) this.byKind.set(key, r);
    }
  }

  lookup(apiVersion: string, kind: string): DiscoveredResource | undefined {
    return this.byKind.get(`${apiVersion}|${kind}`);
  }
}
