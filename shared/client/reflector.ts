/**
 * A reflector: keeps a handler in step with one resource by list then watch. It
 * watches from the last resourceVersion it saw (events and bookmarks advance it), so a
 * closed stream or a lost connection resumes without a relist; a 410 (Expired/Gone)
 * answer or ERROR event relists and hands the handler the complete set again.
 * `start()` resolves after the first complete set was delivered. Handler calls are
 * sequential and awaited, in the order of the stream.
 */
import type { Status } from "../api/status.ts";
import type { ApiObject, ObjectClient, ResourceRef, SelectorOptions } from "./object-client.ts";

export interface ReflectorHandler {
  /** The complete current set (first list and every relist); objects absent from it are gone. */
  replace(items: ApiObject[], resourceVersion: string): void | Promise<void>;
  event(type: "ADDED" | "MODIFIED" | "DELETED", obj: ApiObject): void | Promise<void>;
}

export interface ReflectorOptions extends SelectorOptions {
  /** Resume from this version instead of listing first (relists if it is too old). */
  resourceVersion?: string;
  /** Delay before retrying after a failure; doubles up to 30 s. */
  backoffMs?: number;
  /** Server-side watch timeout per stream (the platform's clients pick 5–10 minutes). */
  watchTimeoutSeconds?: number;
  log?: (msg: string, fields: Record<string, unknown>) => void;
}

function isExpired(s: Status): boolean {
  return s.code === 410 || s.reason === "Expired" || s.reason === "Gone";
}

export class Reflector {
  private stopped = false;
  private current: { stop(): void } | undefined;
  private version: string | undefined;
  private wake: (() => void) | undefined;
  /** Number of complete lists delivered (for tests and metrics). */
  lists = 0;

  constructor(
    private readonly client: ObjectClient,
    readonly resource: ResourceRef,
    private readonly handler: ReflectorHandler,
    private readonly opts: ReflectorOptions = {},
  ) {
    this.version = opts.resourceVersion;
  }

  /** The last version seen (list, event or bookmark). */
  get resourceVersion(): string | undefined {
    return this.version;
  }

  /** Runs in the background until `stop()`; resolves once the handler holds a complete set (at once when resuming). */
  start(): Promise<void> {
    return new Promise((resolve) => {
      void this.run(resolve);
    });
  }

  stop(): void {
    this.stopped = true;
    this.current?.stop();
    this.wake?.();
  }

  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = undefined;
  }

  private async list(): Promise<void> {
    const list = await this.client.list(this.resource, { namespace: this.opts.namespace, labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector });
    const rv = list.metadata.resourceVersion ?? "";
    this.lists++;
    await this.handler.replace(list.items, rv);
    this.version = rv;
  }

  private async run(ready: () => void): Promise<void> {
    const base = this.opts.backoffMs ?? 200;
    let backoff = base;
    if (this.version !== undefined) ready();
    while (!this.stopped) {
      try {
        if (this.version === undefined) {
          await this.list();
          ready();
        }
        const expired = await this.watchOnce(() => {
          backoff = base;
        });
        if (expired) {
          this.opts.log?.("watch expired, relisting", { resource: this.resource.resource, resourceVersion: this.version });
          this.version = undefined;
        }
      } catch (err) {
        if (this.stopped) break;
        this.opts.log?.("list/watch failed", { resource: this.resource.resource, error: String(err) });
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
    ready();
  }

  /** One watch stream; true when the server said the version is too old. `onEvent` runs at its first event. */
  private async watchOnce(onStarted: () => void): Promise<boolean> {
    const w = this.client.watch(this.resource, {
      namespace: this.opts.namespace,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      resourceVersion: this.version,
      allowWatchBookmarks: true,
      timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300),
    });
    this.current = w;
    let started = false;
    try {
      for await (const ev of w) {
        if (ev.type === "ERROR") {
          if (isExpired(ev.object)) return true;
          throw new Error(`watch error ${ev.object.code}: ${ev.object.message}`);
        }
        if (!started) {
          started = true;
          onStarted();
        }
        const rv = ev.object.metadata?.resourceVersion;
        if (ev.type !== "BOOKMARK") await this.handler.event(ev.type, ev.object);
        if (rv) this.version = rv;
        if (this.stopped) break;
      }
      return false;
    } finally {
      w.stop();
      this.current = undefined;
    }
  }
}
