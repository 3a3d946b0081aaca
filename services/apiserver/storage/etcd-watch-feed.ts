/**
 * A replica's revision feed from the etcd v3 Watch API (a real etcd cluster, or our
 * store when no Redis revision stream is in use): one Watch over the registry prefix
 * with previous values and progress notifications.
 *
 * Contract (what FanoutFeed needs from its producer): revisions are pushed strictly
 * consecutively. A prefix watch only sends revisions that touch a key of the prefix;
 * the others are bridged by empty RevisionChanges:
 * - a gap between two event revisions is bridged at once (the watch sends every
 *   event of the prefix, in order, so the revisions between touched no key of it);
 * - a progress notification of our watch (ordered with its events) bridges up to its
 *   header revision;
 * - the answer to a RequestProgress (watch id -1) counts only once the watch is
 *   synced (created at the current revision, or a response showed it live: events
 *   whose header revision is their own, or a progress notification of its own), and
 *   then bridges only up to the revision of the previous answer, received at least
 *   `PROGRESS_SETTLE_MS` before: etcd 3.4 answers such a request out of band, possibly
 *   ahead of events it already holds or has still to replay to a watch catching up.
 *   Should an event ever arrive for a revision already bridged, the feed fails (its
 *   subscribers relist) instead of losing it.
 * Bridged revisions let bookmarks and consistent reads advance past writes outside
 * the prefix.
 *
 * Compaction: when the watch's start revision was compacted away, subscribers fail
 * with CompactedError (they relist) and the watch restarts at the current revision.
 * Reconnects: a failed or silent stream (no answer to progress requests within
 * `stallTimeoutMs`) is reopened on the next endpoint from the last delivered revision.
 *
 * EtcdRevisionWatch is the watch alone, delivering into a sink: RedisFeed uses it as
 * its live source while Redis is down.
 */
import type { PbEvent, PbWatchRequest, PbWatchResponse } from "../../../shared/etcd/wire.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { toChange } from "./etcd-kv.ts";
import type { EndpointPool } from "./etcd-kv-pool.ts";
import { FanoutFeed } from "./fanout-feed.ts";
import { CompactedError, prefixEnd, type KvStore, type RevisionChange } from "./kv.ts";

/** The answer to a RequestProgress carries this watch id (etcd's InvalidWatchID). */
const BROADCAST_WATCH_ID = -1;
/** Longer than etcd's unsynced-watcher sync interval (100 ms). */
export const PROGRESS_SETTLE_MS = 150;

/** An event revision at or below what was already delivered or bridged. */
export class RevisionOrderError extends Error {
  constructor(
    readonly revision: number,
    readonly last: number,
  ) {
    super(`watch event at revision ${revision} after revision ${last} was delivered`);
  }
}

/**
 * The pure core: turns watch responses into strictly consecutive revisions after
 * `last`, bridging revisions without events of the prefix by empty changes.
 */
export class RevisionSequencer {
  private candidate: { revision: number; atMs: number } | undefined;
  /** The watch is known to send live events (no replay of history pending). */
  synced = false;

  constructor(public last: number) {}

  /** The watch was created while the store was at `headerRevision`: synced if nothing is to replay. */
  created(headerRevision: number): void {
    if (headerRevision <= this.last) this.synced = true;
  }

  /**
   * The events of one response (every event of a revision comes in one response),
   * sent when the store was at `headerRevision`: a live response names its own revision.
   */
  events(events: readonly PbEvent[], headerRevision = 0): RevisionChange[] {
    const out: RevisionChange[] = [];
    for (const e of events) {
      const revision = Number(e.kv.mod_revision);
      const open = out[out.length - 1];
      if (open !== undefined && open.revision === revision) {
        open.changes.push(toChange(e));
        continue;
      }
      if (revision <= this.last) throw new RevisionOrderError(revision, this.last);
      out.push(...this.bridge(revision - 1), { revision, changes: [toChange(e)] });
      this.last = revision;
    }
    if (out.length > 0 && headerRevision === this.last) this.synced = true;
    return out;
  }

  /** A progress notification of the watch itself (sent to synced watches): everything up to `revision` was sent. */
  progress(revision: number): RevisionChange[] {
    this.synced = true;
    return this.bridge(revision);
  }

  /**
   * The answer to a RequestProgress at `nowMs`: bridges up to the previous answer's
   * revision if that one is at least PROGRESS_SETTLE_MS old, and remembers this one.
   */
  requestedProgress(revision: number, nowMs: number): RevisionChange[] {
    if (!this.synced) return [];
    const previous = this.candidate;
    if (previous !== undefined && nowMs - previous.atMs < PROGRESS_SETTLE_MS) return [];
    this.candidate = { revision, atMs: nowMs };
    return previous === undefined ? [] : this.bridge(previous.revision);
  }

  private bridge(upTo: number): RevisionChange[] {
    const out: RevisionChange[] = [];
    while (this.last < upTo) out.push({ revision: ++this.last, changes: [] });
    return out;
  }
}

/** Where an EtcdRevisionWatch delivers. */
export interface RevisionSink {
  /** The last revision delivered: the watch (re)starts after it. */
  position(): number;
  /** The next revision (position() + 1). */
  deliver(change: RevisionChange): void;
  /**
   * History after position() is lost (compacted, or delivered out of order): the sink
   * fails its subscribers and moves its position; the watch then restarts after it.
   */
  lost(err: Error): Promise<void>;
}

export interface EtcdRevisionWatchOptions {
  /** Key prefix watched (default "/registry/"). */
  prefix?: string;
  /** Period of progress requests (default 500 ms). */
  progressIntervalMs?: number;
  /** A stream that answers nothing for this long is reopened (default 5 s). */
  stallTimeoutMs?: number;
  log?: LogFn;
}

interface OpenWatch {
  cancel(): void;
  created: Promise<void>;
}

export class EtcdRevisionWatch {
  private stopped = true;
  private current: OpenWatch | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private lastAnswerMs = 0;
  private reopenTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** Counters for tests and metrics. */
  readonly stats = { streams: 0, events: 0, bridged: 0, lost: 0 };

  constructor(
    private readonly pool: EndpointPool,
    private readonly sink: RevisionSink,
    private readonly opts: EtcdRevisionWatchOptions = {},
  ) {}

  get running(): boolean {
    return !this.stopped;
  }

  /** Opens the watch; resolves once etcd has created it (or the first attempt failed). */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    const interval = this.opts.progressIntervalMs ?? 500;
    this.ticker = setInterval(() => this.tick(), interval);
    this.ticker.unref();
    await this.open().created.catch(() => {});
  }

  stop(): void {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
    if (this.reopenTimer) clearTimeout(this.reopenTimer);
    this.current?.cancel();
    this.current = undefined;
  }

  private tick(): void {
    if (this.stopped || !this.current) return;
    if (Date.now() - this.lastAnswerMs > (this.opts.stallTimeoutMs ?? 5000)) {
      this.opts.log?.("warn", "etcd watch stream silent: reopening it", { endpoint: this.pool.endpoint });
      this.reopen(true);
      return;
    }
    this.write({ request_union: "progress_request", progress_request: {} });
  }

  /** Writes to the open stream (nothing once it is closed). */
  private write: (req: PbWatchRequest) => void = () => {};

  private open(): OpenWatch {
    const prefix = this.opts.prefix ?? "/registry/";
    const { stream, endpoint } = this.pool.stream("Watch");
    this.stats.streams++;
    const sequencer = new RevisionSequencer(this.sink.position());
    let watchId: number | undefined;
    let done = false;
    let settle: (err?: Error) => void = () => {};
    const created = new Promise<void>((resolve, reject) => {
      settle = (err) => (err ? reject(err) : resolve());
    });
    created.catch(() => {}); // only start() waits for it; a reopened watch that fails early is retried
    const finish = (err: Error | undefined, failover: boolean) => {
      if (done) return;
      done = true;
      settle(err ?? new Error("watch closed"));
      stream.cancel();
      if (this.current === watch) this.current = undefined;
      if (failover) this.pool.failover(endpoint);
      if (!this.stopped) this.scheduleOpen();
    };
    const deliverAll = (changes: RevisionChange[]) => {
      for (const c of changes) {
        if (c.changes.length === 0) this.stats.bridged++;
        else this.stats.events += c.changes.length;
        this.sink.deliver(c);
      }
    };
    const lose = (err: Error) => {
      done = true;
      settle(err);
      stream.cancel();
      if (this.current === watch) this.current = undefined;
      this.stats.lost++;
      this.opts.log?.("warn", "etcd watch lost history: subscribers relist", { error: err.message });
      void this.sink
        .lost(err)
        .catch((failure: unknown) => this.opts.log?.("warn", "etcd watch: moving past the lost history failed", { error: String(failure) }))
        .finally(() => {
          if (!this.stopped) this.scheduleOpen(0);
        });
    };
    stream.on("data", (res: PbWatchResponse) => {
      if (done) return;
      this.lastAnswerMs = Date.now();
      const id = Number(res.watch_id);
      try {
        if (res.created) {
          watchId = id;
          sequencer.created(Number(res.header?.revision ?? 0));
          this.failures = 0;
          settle();
        }
        if (res.canceled) {
          const compact = Number(res.compact_revision ?? 0);
          if (compact > 0) lose(new CompactedError(sequencer.last + 1, compact));
          else finish(new Error(`etcd watch canceled: ${res.cancel_reason ?? ""}`), true);
          return;
        }
        if ((res.events?.length ?? 0) > 0) deliverAll(sequencer.events(res.events ?? [], Number(res.header?.revision ?? 0)));
        else if (id === BROADCAST_WATCH_ID) deliverAll(sequencer.requestedProgress(Number(res.header?.revision ?? 0), Date.now()));
        else if (!res.created && id === watchId) deliverAll(sequencer.progress(Number(res.header?.revision ?? 0)));
      } catch (err) {
        lose(err instanceof Error ? err : new Error(String(err)));
      }
    });
    stream.on("error", (err) => finish(err, true));
    stream.on("end", () => finish(new Error("etcd watch stream ended"), true));
    this.write = (req) => {
      if (!done) stream.write(req);
    };
    this.lastAnswerMs = Date.now();
    const all = Buffer.from(prefix, "utf8");
    stream.write({
      request_union: "create_request",
      create_request: { key: all, range_end: Buffer.from(prefixEnd(prefix), "utf8"), start_revision: sequencer.last + 1, prev_kv: true, progress_notify: true },
    });
    const watch: OpenWatch = { created, cancel: () => finish(undefined, false) };
    this.current = watch;
    return watch;
  }

  private reopen(failover: boolean): void {
    const watch = this.current;
    this.current = undefined;
    watch?.cancel();
    if (failover) this.pool.failover(this.pool.endpoint);
    this.scheduleOpen(0);
  }

  private scheduleOpen(delayMs?: number): void {
    if (this.stopped || this.reopenTimer) return;
    const wait = delayMs ?? Math.min(100 * 2 ** this.failures++, 1000);
    this.reopenTimer = setTimeout(() => {
      this.reopenTimer = undefined;
      if (!this.stopped && !this.current) this.open();
    }, wait);
    this.reopenTimer.unref();
  }
}

/** A FanoutFeed whose live source is an EtcdRevisionWatch; catch-ups read the store's history. */
export class EtcdWatchFeed {
  readonly feed: FanoutFeed;
  private last = 0;
  private readonly watch: EtcdRevisionWatch;

  constructor(
    private readonly kv: KvStore,
    pool: EndpointPool,
    opts: EtcdRevisionWatchOptions = {},
  ) {
    this.feed = new FanoutFeed(kv);
    this.watch = new EtcdRevisionWatch(pool, {
      position: () => this.last,
      deliver: (change) => {
        if (change.revision !== this.last + 1) return;
        this.last = change.revision;
        this.feed.push(change);
      },
      lost: async (err) => {
        this.feed.fail(err);
        this.last = await this.currentRevisionOr(this.last);
        this.feed.setLivePosition(this.last);
      },
    }, opts);
  }

  get stats(): EtcdRevisionWatch["stats"] {
    return this.watch.stats;
  }

  get position(): number {
    return this.last;
  }

  /** Starts at the store's current revision (subscribers behind it catch up from history). */
  async start(): Promise<void> {
    this.last = await this.kv.currentRevision();
    this.feed.setLivePosition(this.last);
    await this.watch.start();
  }

  stop(): void {
    this.watch.stop();
  }

  private async currentRevisionOr(fallback: number): Promise<number> {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        return await this.kv.currentRevision();
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    return fallback;
  }
}
