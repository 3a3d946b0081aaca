/**
 * etcdserverpb.Watch: one bidirectional stream carries many watchers.
 *
 * Each watcher has `next`, the lowest revision it has not yet been sent. A watcher
 * starts unsynced when its start revision is in the past: it is caught up from the
 * MVCC history (`changesSince`) in batches that respect the stream's buffer, and
 * becomes synced in the same synchronous step that sees `next > currentRevision`;
 * from then on the stream's single `onApplied` listener feeds it. Every revision is
 * thus sent exactly once, in order, never split unless the watcher asked for
 * fragments. A start revision below the compact revision cancels the watcher with
 * `compact_revision` set, as etcd does.
 *
 * A client that does not read its stream is disconnected (UNAVAILABLE) once the
 * stream's buffer holds too many responses; clients resume from their last revision.
 *
 * A state change without `onApplied` calls (a follower installing a snapshot) is
 * noticed by a once-a-second check (`next <= currentRevision` on a synced watcher),
 * which catches the watcher up from the history (or cancels it as compacted).
 */
import { status } from "@grpc/grpc-js";
import { intervalContains, keyId, toInterval, type KeyInterval } from "../mvcc/keys.ts";
import { ErrCompacted, type KvEvent, type RevisionChange } from "../mvcc/index.ts";
import type { BidiCall } from "./bidi-call.ts";
import type { ServerContext } from "./context.ts";
import { num, pbEvent } from "./convert.ts";
import { GrpcError, toServiceError } from "./grpc-errors.ts";
import type { PbEvent, PbWatchCreateRequest, PbWatchRequest, PbWatchResponse } from "../../../shared/etcd/wire.ts";

type WatchCall = BidiCall<PbWatchRequest, PbWatchResponse>;

interface Watcher {
  readonly id: number;
  readonly interval: KeyInterval;
  readonly range: { key: Uint8Array; rangeEnd?: Uint8Array };
  readonly noPut: boolean;
  readonly noDelete: boolean;
  readonly prevKv: boolean;
  readonly progressNotify: boolean;
  readonly fragment: boolean;
  next: number;
  synced: boolean;
  closed: boolean;
}

/** Responses buffered on a stream before the client counts as stuck. */
const MAX_BUFFERED = 10_000;
/** Events per catch-up response (whole revisions are never split without `fragment`). */
const CATCH_UP_BATCH = 1000;
const INVALID_WATCH_ID = -1;

class WatchStream {
  private readonly watchers = new Map<number, Watcher>();
  private nextId = 0;
  private closed = false;
  private progressPending = false;
  private readonly unsubscribe: () => void;
  private readonly progressTimer: NodeJS.Timeout;
  private readonly resyncTimer: NodeJS.Timeout;

  constructor(
    private readonly ctx: ServerContext,
    private readonly call: WatchCall,
  ) {
    this.unsubscribe = ctx.backend.onApplied((change) => this.onApplied(change));
    this.progressTimer = setInterval(() => this.notifyProgress(), ctx.options.progressNotifyIntervalMs);
    this.progressTimer.unref();
    this.resyncTimer = setInterval(() => this.guard(() => this.resync()), 1000);
    this.resyncTimer.unref();
    call.on("data", (req: PbWatchRequest) => this.guard(() => this.onRequest(req)));
    call.on("end", () => this.close());
    call.on("cancelled", () => this.close());
    call.on("error", () => this.close());
    call.on("close", () => this.close());
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.close();
    this.call.emit("error", toServiceError(err));
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.progressTimer);
    clearInterval(this.resyncTimer);
    for (const w of this.watchers.values()) w.closed = true;
    this.watchers.clear();
    if (!this.call.writableEnded) this.call.end();
  }

  private send(res: PbWatchResponse): void {
    if (this.closed) return;
    if (this.call.writableLength > MAX_BUFFERED) {
      this.fail(new GrpcError(status.UNAVAILABLE, "etcdserver: watch stream is not being read; reconnect"));
      return;
    }
    this.call.write(res);
  }

  private onRequest(req: PbWatchRequest): void {
    if (req.request_union === "create_request" && req.create_request !== undefined) this.create(req.create_request);
    else if (req.request_union === "cancel_request" && req.cancel_request !== undefined) this.cancel(num(req.cancel_request.watch_id, "watch_id"));
    else if (req.request_union === "progress_request") this.requestProgress();
  }

  private create(cr: PbWatchCreateRequest): void {
    const header = this.ctx.header();
    let id: number;
    let start: number;
    try {
      id = num(cr.watch_id, "watch_id");
      start = num(cr.start_revision, "start_revision");
    } catch (err) {
      this.send({ header, watch_id: INVALID_WATCH_ID, created: true, canceled: true, cancel_reason: (err as Error).message });
      return;
    }
    if (id !== 0 && this.watchers.has(id)) {
      this.send({ header, watch_id: INVALID_WATCH_ID, created: true, canceled: true, cancel_reason: "mvcc: duplicate watch ID provided on the WatchStream" });
      return;
    }
    if (id === 0) {
      while (this.watchers.has(this.nextId)) this.nextId++;
      id = this.nextId++;
    }
    const filters = (cr.filters ?? []).map(String);
    const range = { key: cr.key ?? new Uint8Array(0), rangeEnd: cr.range_end?.length ? cr.range_end : undefined };
    const current = this.ctx.backend.mvcc.currentRevision;
    const w: Watcher = {
      id,
      range,
      interval: toInterval(range),
      noPut: filters.includes("NOPUT"),
      noDelete: filters.includes("NODELETE"),
      prevKv: cr.prev_kv === true,
      progressNotify: cr.progress_notify === true,
      fragment: cr.fragment === true,
      next: start > 0 ? start : current + 1,
      synced: false,
      closed: false,
    };
    this.watchers.set(id, w);
    this.send({ header, watch_id: id, created: true });
    if (w.next > current) w.synced = true;
    else void this.catchUp(w);
  }

  private cancel(id: number, compactRevision?: number): void {
    const w = this.watchers.get(id);
    if (w === undefined) return;
    w.closed = true;
    this.watchers.delete(id);
    const res: PbWatchResponse = { header: this.ctx.header(), watch_id: id, canceled: true };
    if (compactRevision !== undefined) {
      res.compact_revision = compactRevision;
      res.cancel_reason = "etcdserver: mvcc: required revision has been compacted";
    }
    this.send(res);
  }

  private requestProgress(): void {
    this.progressPending = true;
    this.flushProgress();
  }

  /** A requested progress notification goes out once every watcher is synced (then no event is pending). */
  private flushProgress(): void {
    if (!this.progressPending || [...this.watchers.values()].some((w) => !w.synced)) return;
    this.progressPending = false;
    this.send({ header: this.ctx.header(), watch_id: INVALID_WATCH_ID });
  }

  private notifyProgress(): void {
    for (const w of this.watchers.values()) {
      if (w.progressNotify && w.synced) this.send({ header: this.ctx.header(), watch_id: w.id });
    }
  }

  private async catchUp(w: Watcher): Promise<void> {
    const mvcc = this.ctx.backend.mvcc;
    try {
      while (!w.closed && !this.closed) {
        const current = mvcc.currentRevision;
        if (w.next > current) {
          w.synced = true;
          this.flushProgress();
          return;
        }
        let changes: RevisionChange[];
        try {
          changes = mvcc.changesSince(w.next, w.range);
        } catch (err) {
          if (!(err instanceof ErrCompacted)) throw err;
          this.cancel(w.id, err.compactRevision);
          return;
        }
        let batch: PbEvent[] = [];
        for (const change of changes) {
          if (change.revision > current) break;
          batch.push(...this.select(w, change.events));
          if (batch.length >= CATCH_UP_BATCH) {
            this.sendEvents(w, batch, current);
            batch = [];
            await this.drained();
            if (w.closed || this.closed) return;
          }
        }
        if (batch.length > 0) this.sendEvents(w, batch, current);
        w.next = current + 1;
        await this.drained();
      }
    } catch (err) {
      this.fail(err);
    }
  }

  /** Resolves when the stream's buffer is short again (at once if it is). */
  private async drained(): Promise<void> {
    if (this.call.writableLength < 64) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.call.off("drain", done);
        this.call.off("close", done);
        resolve();
      };
      this.call.on("drain", done);
      this.call.on("close", done);
    });
  }

  /** Catches up synced watchers that the applied-change feed did not advance. */
  private resync(): void {
    const current = this.ctx.backend.mvcc.currentRevision;
    for (const w of this.watchers.values()) {
      if (!w.synced || w.next > current) continue;
      w.synced = false;
      void this.catchUp(w);
    }
  }

  private onApplied(change: RevisionChange): void {
    this.guard(() => {
      for (const w of this.watchers.values()) {
        if (!w.synced || change.revision < w.next) continue;
        if (change.revision > w.next) {
          // A revision was missed (not expected from a backend that keeps order): refill from history.
          w.synced = false;
          void this.catchUp(w);
          continue;
        }
        w.next = change.revision + 1;
        const events = this.select(w, change.events.filter((e) => intervalContains(w.interval, keyId(e.kv.key))));
        if (events.length > 0) this.sendEvents(w, events, change.revision);
      }
    });
  }

  private select(w: Watcher, events: readonly KvEvent[]): PbEvent[] {
    const out: PbEvent[] = [];
    for (const e of events) {
      if ((e.type === "PUT" && w.noPut) || (e.type === "DELETE" && w.noDelete)) continue;
      out.push(pbEvent(e, w.prevKv));
    }
    return out;
  }

  private sendEvents(w: Watcher, events: PbEvent[], revision: number): void {
    const header = this.ctx.header(revision);
    if (!w.fragment) {
      this.send({ header, watch_id: w.id, events });
      return;
    }
    const limit = this.ctx.options.maxRequestBytes;
    let part: PbEvent[] = [];
    let size = 0;
    for (const e of events) {
      const s = eventSize(e);
      if (part.length > 0 && size + s > limit) {
        this.send({ header, watch_id: w.id, events: part, fragment: true });
        part = [];
        size = 0;
      }
      part.push(e);
      size += s;
    }
    this.send({ header, watch_id: w.id, events: part });
  }
}

function eventSize(e: PbEvent): number {
  return 64 + e.kv.key.length + e.kv.value.length + (e.prev_kv === undefined ? 0 : e.prev_kv.key.length + e.prev_kv.value.length);
}

export function watchHandlers(ctx: ServerContext) {
  return {
    Watch(call: WatchCall): void {
      new WatchStream(ctx, call);
    },
  };
}
