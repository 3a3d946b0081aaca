/**
 * A watcher of the chaos suite, as an informer would watch: a list for the
 * starting resourceVersion, then watches of the namespace's ConfigMaps (with
 * bookmarks) through the load balancer, each resumed from the last
 * resourceVersion seen when its connection ends or breaks. An ERROR event with
 * 410 (Expired) makes it list again; the revisions it skipped that way are kept
 * as a gap. Every event received is recorded in arrival order; watch-check.ts
 * compares them with the store's history afterwards.
 */
import type { ClientRequest } from "node:http";
import { Agent, request } from "node:https";
import type { ApiTarget } from "./api-recorder.ts";

export interface ReceivedEvent {
  type: string;
  name: string;
  revision: number;
}

export interface RelistGap {
  /** Last revision seen before the 410, and the revision of the list after it. */
  from: number;
  to: number;
}

interface WatchEventLine {
  type: string;
  object?: { metadata?: { name?: string; resourceVersion?: string }; code?: number };
}

export class WatchRecorder {
  readonly events: ReceivedEvent[] = [];
  readonly gaps: RelistGap[] = [];
  startRevision = 0;
  /** Newest resourceVersion seen (events and bookmarks). */
  revision = 0;
  connections = 0;
  private stopped = false;
  private current: ClientRequest | undefined;
  private loopDone: Promise<void> = Promise.resolve();
  private readonly agent: Agent;

  constructor(
    readonly id: number,
    private readonly url: string,
    private readonly target: ApiTarget,
    /** timeoutSeconds of each watch request (the server ends it then; the watcher resumes). */
    private readonly watchSeconds: number,
  ) {
    this.agent = new Agent({ keepAlive: false, ca: target.ca, cert: target.cert, key: target.key });
  }

  private get base(): string {
    return `/api/v1/namespaces/${this.target.namespace}/configmaps`;
  }

  /** Lists until a list succeeds; returns its resourceVersion. */
  private async list(): Promise<number> {
    while (!this.stopped) {
      const rv = await new Promise<number | undefined>((resolve) => {
        const req = request(new URL(this.base, this.url), { agent: this.agent, headers: { accept: "application/json" }, timeout: 10_000 }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve(res.statusCode === 200 ? Number((JSON.parse(Buffer.concat(chunks).toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion) : undefined));
          res.on("error", () => resolve(undefined));
        });
        req.on("timeout", () => req.destroy());
        req.on("error", () => resolve(undefined));
        req.end();
      });
      if (rv !== undefined) return rv;
      await new Promise((r) => setTimeout(r, 200));
    }
    return this.revision;
  }

  async start(): Promise<void> {
    this.startRevision = this.revision = await this.list();
    this.loopDone = this.loop();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const expired = await this.watchOnce();
      if (expired && !this.stopped) {
        const from = this.revision;
        this.revision = await this.list();
        this.gaps.push({ from, to: this.revision });
      } else if (!this.stopped) await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** One watch request until it ends; true when it ended with 410 Expired. */
  private watchOnce(): Promise<boolean> {
    const q = `?watch=1&allowWatchBookmarks=true&resourceVersion=${this.revision}&timeoutSeconds=${this.watchSeconds}`;
    this.connections++;
    return new Promise((resolve) => {
      let expired = false;
      let buf = "";
      const req = request(new URL(this.base + q, this.url), { agent: this.agent, headers: { accept: "application/json" } }, (res) => {
        if (res.statusCode === 410) expired = true;
        if (res.statusCode !== 200) {
          res.resume();
          res.on("close", () => resolve(expired));
          return;
        }
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line !== "" && this.take(JSON.parse(line) as WatchEventLine)) expired = true;
          }
        });
        res.on("end", () => resolve(expired));
        res.on("error", () => resolve(expired));
        // A destroyed request ends its response with close alone.
        res.on("close", () => resolve(expired));
      });
      req.on("error", () => resolve(expired));
      req.end();
      this.current = req;
    });
  }

  /** Records one event; true for an ERROR event with 410. */
  private take(e: WatchEventLine): boolean {
    if (e.type === "ERROR") return e.object?.code === 410;
    const rv = Number(e.object?.metadata?.resourceVersion);
    if (e.type !== "BOOKMARK") this.events.push({ type: e.type, name: e.object?.metadata?.name ?? "", revision: rv });
    if (rv > this.revision) this.revision = rv;
    return false;
  }

  /** Waits until the watcher has seen `revision` (or `timeoutMs` passed), then stops it. */
  async stopAt(revision: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.revision < revision && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    this.stopped = true;
    this.current?.destroy();
    await this.loopDone;
    this.agent.destroy();
  }
}
