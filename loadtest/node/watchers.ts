/**
 * `--watchers N`: N long-running watches of the run's ConfigMaps (label-selected),
 * held for the whole run and resumed from their last resourceVersion whenever the
 * server ends one (after a 410 Expired, from a fresh list). Every ADDED or MODIFIED
 * event whose object carries data[WRITTEN_AT] gives one delivery latency: the time
 * it arrived minus the time its write was sent (the same machine's clock when the
 * harness writes; a remote writer's clock otherwise).
 */
import { Agent, request } from "node:https";
import type { ClientRequest } from "node:http";
import type { Connection } from "./connection.ts";
import { RUN_LABEL, WRITTEN_AT } from "./scenarios.ts";

interface WatchEvent {
  type: string;
  object?: { metadata?: { resourceVersion?: string }; data?: Record<string, string>; code?: number };
}

export class DeliveryWatchers {
  /** Delivery latency of each event (ms), over all watchers. */
  readonly latencies: number[] = [];
  events = 0;
  /** Watch requests that failed (not 200) or ended with an ERROR event. */
  failures = 0;
  private stopped = false;
  private readonly agent: Agent;
  private readonly requests = new Set<ClientRequest>();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly conn: Connection,
    private readonly namespace: string,
    private readonly runId: string,
  ) {
    this.agent = new Agent({ keepAlive: false, ca: conn.ca, cert: conn.cert, key: conn.key, rejectUnauthorized: !conn.insecure });
  }

  private path(query: string): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/configmaps?labelSelector=${encodeURIComponent(`${RUN_LABEL}=${this.runId}`)}&${query}`;
  }

  private get(path: string, onLine: (line: string) => void): Promise<number> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.conn.token !== undefined) headers.Authorization = `Bearer ${this.conn.token}`;
    return new Promise((resolve) => {
      let status = 0;
      const req = request(new URL(path, this.conn.url), { headers, agent: this.agent }, (res) => {
        status = res.statusCode ?? 0;
        let buf = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0) {
            onLine(buf.slice(0, nl));
            buf = buf.slice(nl + 1);
          }
        });
        res.on("close", () => {
          if (buf.trim() !== "") onLine(buf);
          this.requests.delete(req);
          resolve(status);
        });
      });
      req.on("error", () => {
        this.requests.delete(req);
        resolve(status);
      });
      this.requests.add(req);
      req.end();
    });
  }

  /** The current resourceVersion of the run's objects (a one-item list). */
  private async listRevision(): Promise<string | undefined> {
    let text = "";
    const status = await this.get(this.path("limit=1"), (line) => (text += line));
    if (status !== 200) return undefined;
    try {
      return (JSON.parse(text) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    } catch {
      return undefined;
    }
  }

  private async loop(): Promise<void> {
    let rv: string | undefined;
    while (!this.stopped) {
      rv ??= await this.listRevision();
      if (rv === undefined) {
        this.failures++;
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      let expired = false;
      const status = await this.get(this.path(`watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}`), (line) => {
        if (line.trim() === "") return;
        const e = JSON.parse(line) as WatchEvent;
        if (e.type === "ERROR") {
          expired = e.object?.code === 410;
          this.failures++;
          return;
        }
        rv = e.object?.metadata?.resourceVersion ?? rv;
        const at = Number(e.object?.data?.[WRITTEN_AT]);
        if ((e.type === "ADDED" || e.type === "MODIFIED") && Number.isFinite(at) && at > 0) {
          this.events++;
          this.latencies.push(Date.now() - at);
        }
      });
      if (this.stopped) return;
      if (status !== 200) this.failures++;
      if (expired || status === 410) rv = undefined;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Starts `count` watchers; each lists for its starting resourceVersion first. */
  start(count: number): void {
    this.loops = Array.from({ length: count }, () => this.loop());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const req of this.requests) req.destroy();
    await Promise.all(this.loops);
    this.agent.destroy();
  }
}
