/**
 * The OpenAPI documents of aggregated servers, as this server republishes them.
 *  - v2: after each passed availability check the backend's `/openapi/v2` is fetched
 *    (with `If-None-Match`, so an unchanged document costs a 304) and kept; the
 *    /openapi/v2 handler merges the kept documents into this server's (openapi-merge.ts).
 *  - v3: the same check fetches the backend's `/openapi/v3` index and keeps the
 *    entry of the APIService's own group version (`apis/<group>/<version>`); the
 *    /openapi/v3 index lists it with the backend's hash, and the document is fetched
 *    from the backend when asked for, kept while the backend's hash stays the same.
 * `generation` changes whenever what the documents are built from changes. A backend
 * that fails keeps what was fetched before (the platform serves the last good spec);
 * an APIService that is deleted or no longer aggregated is forgotten.
 */
import type { ApiServiceInfo } from "./api-service.ts";

/** One answer of a backend, read whole. */
export interface FetchedText {
  status: number;
  etag?: string;
  text: string;
}

/** GETs a path from the backend of an APIService as the aggregator. */
export type BackendFetch = (info: ApiServiceInfo, path: string, headers: Array<[string, string]>) => Promise<FetchedText>;

interface Kept {
  info: ApiServiceInfo;
  v2?: { etag?: string; doc: Record<string, unknown> };
  /** The backend's v3 entry of the APIService's group version. */
  v3?: { path: string; url: string; hash: string };
  v3Doc?: { hash: string; text: string };
}

function hashOfUrl(url: string): string {
  return new URL(url, "https://x").searchParams.get("hash") ?? "";
}

export class AggregatedOpenApi {
  generation = 0;
  private readonly kept = new Map<string, Kept>();
  private readonly refreshing = new Set<string>();

  constructor(
    private readonly fetchText: BackendFetch,
    private readonly log?: (msg: string, fields: Record<string, unknown>) => void,
  ) {}

  /** Fetches the backend's documents after a passed check; one refresh at a time per APIService. */
  async refresh(info: ApiServiceInfo): Promise<void> {
    if (this.refreshing.has(info.name)) return;
    this.refreshing.add(info.name);
    try {
      const kept: Kept = this.kept.get(info.name) ?? { info };
      const before = JSON.stringify([kept.v2?.etag, kept.v2 ? Object.keys(kept.v2.doc).length : 0, kept.v3, info.groupPriorityMinimum, info.versionPriority]);
      kept.info = info;
      await this.refreshV2(kept);
      await this.refreshV3(kept);
      this.kept.set(info.name, kept);
      const after = JSON.stringify([kept.v2?.etag, kept.v2 ? Object.keys(kept.v2.doc).length : 0, kept.v3, info.groupPriorityMinimum, info.versionPriority]);
      if (before !== after) this.generation++;
    } finally {
      this.refreshing.delete(info.name);
    }
  }

  private async refreshV2(kept: Kept): Promise<void> {
    try {
      const res = await this.fetchText(kept.info, "/openapi/v2", [["accept", "application/json"], ...(kept.v2?.etag ? ([["if-none-match", kept.v2.etag]] as Array<[string, string]>) : [])]);
      if (res.status === 304) return;
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      const doc: unknown = JSON.parse(res.text);
      if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new Error("not an object");
      kept.v2 = { etag: res.etag, doc: doc as Record<string, unknown> };
    } catch (err) {
      this.log?.("aggregated OpenAPI v2 not fetched", { name: kept.info.name, error: String(err) });
    }
  }

  private async refreshV3(kept: Kept): Promise<void> {
    try {
      const res = await this.fetchText(kept.info, "/openapi/v3", [["accept", "application/json"]]);
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      const index = JSON.parse(res.text) as { paths?: Record<string, { serverRelativeURL?: string }> };
      const path = `apis/${kept.info.group}/${kept.info.version}`;
      const url = index.paths?.[path]?.serverRelativeURL;
      kept.v3 = typeof url === "string" && url.startsWith("/") ? { path, url, hash: hashOfUrl(url) } : undefined;
      if (kept.v3Doc && kept.v3Doc.hash !== kept.v3?.hash) kept.v3Doc = undefined;
    } catch (err) {
      this.log?.("aggregated OpenAPI v3 index not fetched", { name: kept.info.name, error: String(err) });
    }
  }

  /** Drops what was kept of APIServices not in `names` (deleted or local now). */
  retain(names: ReadonlySet<string>): void {
    for (const name of [...this.kept.keys()]) {
      if (names.has(name)) continue;
      this.kept.delete(name);
      this.generation++;
    }
  }

  /** The backends' v2 documents, by group priority, version priority, then name. */
  v2Documents(): Array<Record<string, unknown>> {
    return [...this.kept.values()]
      .filter((k) => k.v2)
      .sort((a, b) => b.info.groupPriorityMinimum - a.info.groupPriorityMinimum || b.info.versionPriority - a.info.versionPriority || a.info.name.localeCompare(b.info.name))
      .map((k) => (k.v2 as NonNullable<Kept["v2"]>).doc);
  }

  /** The v3 index entries of aggregated group versions: path → backend hash. */
  v3Paths(): Map<string, string> {
    const out = new Map<string, string>();
    for (const k of this.kept.values()) if (k.v3) out.set(k.v3.path, k.v3.hash);
    return out;
  }

  /** The backend's v3 document of `path` (`apis/<group>/<version>`), fetched when not kept. */
  async v3Document(path: string): Promise<{ text: string; hash: string } | undefined> {
    const kept = [...this.kept.values()].find((k) => k.v3?.path === path);
    const entry = kept?.v3;
    if (!kept || !entry) return undefined;
    if (kept.v3Doc && kept.v3Doc.hash === entry.hash) return kept.v3Doc;
    const res = await this.fetchText(kept.info, entry.url, [["accept", "application/json"]]);
    if (res.status !== 200) return undefined;
    const doc = { text: res.text, hash: entry.hash || (res.etag ?? "").replaceAll('"', "") };
    if (entry.hash) kept.v3Doc = doc;
    return doc;
  }
}
