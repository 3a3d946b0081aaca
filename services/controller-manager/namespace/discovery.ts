/**
 * Discovery for namespace deletion that tolerates failing group versions, as the
 * platform's: the namespaced resources offering list and delete in every group version
 * that answers (preferred versions only), plus the group versions that did not answer
 * (an aggregated API whose backend is down) with their errors. Only /api and /apis
 * themselves failing is an error.
 */
import type { PathGetter } from "../../../shared/client/object-client.ts";
import type { DiscoveredResource } from "../../../shared/client/discovery.ts";

interface ResourceListDoc {
  resources?: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }>;
}
interface GroupListDoc {
  groups?: Array<{ name: string; versions: Array<{ version: string }>; preferredVersion?: { version: string } }>;
}

export interface PartialDiscovery {
  resources: DiscoveredResource[];
  /** `group/version` (`v1` for the core group) → error message. */
  failures: Map<string, string>;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function discoverDeletableNamespaced(api: PathGetter): Promise<PartialDiscovery> {
  const core = (await api.getPath("/api")) as { versions?: string[] };
  const groups = (await api.getPath("/apis")) as GroupListDoc;
  const targets: Array<{ path: string; group: string; version: string; gv: string }> = [];
  const coreVersion = core.versions?.[0];
  if (coreVersion) targets.push({ path: `/api/${coreVersion}`, group: "", version: coreVersion, gv: coreVersion });
  for (const g of groups.groups ?? []) {
    const version = g.preferredVersion?.version ?? g.versions[0]?.version;
    if (version) targets.push({ path: `/apis/${g.name}/${version}`, group: g.name, version, gv: `${g.name}/${version}` });
  }
  const answers = await Promise.allSettled(targets.map((t) => api.getPath(t.path) as Promise<ResourceListDoc>));
  const result: PartialDiscovery = { resources: [], failures: new Map() };
  answers.forEach((answer, i) => {
    const t = targets[i];
    if (answer.status === "rejected") {
      result.failures.set(t.gv, errorText(answer.reason));
      return;
    }
    for (const r of answer.value.resources ?? []) {
      const verbs = r.verbs ?? [];
      if (r.name.includes("/") || !r.namespaced || !verbs.includes("list") || !verbs.includes("delete")) continue;
      result.resources.push({ group: t.group, version: t.version, resource: r.name, kind: r.kind, namespaced: true, verbs, preferred: true });
    }
  });
  return result;
}
