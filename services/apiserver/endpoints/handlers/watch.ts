/**
 * Watch: a chunked stream of `{type, object}` documents, one per line. Ends after
 * `timeoutSeconds` (default: a random time between 30 and 60 minutes), when the
 * client goes away, or when the server closes the watcher (slow consumer, cache
 * reset — the latter with an ERROR event carrying a 410 Status). A watch from a
 * compacted version is answered the same way: 200 and one ERROR event. An idle watch keeps
 * little: its source object, framing inputs and the cache's watcher, writing to the node
 * response directly (direct-body.ts).
 */
import type { ServerResponse } from "node:http";
import { StatusError } from "../../../../shared/api/status.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { WatchEvent, Watcher } from "../../storage/interface.ts";
import { EventQueue, WAITING, type EventConsumer } from "../../storage/event-queue.ts";
import { parseListQuery, watchTimeoutMs } from "../list-options.ts";
import { buildSelection } from "../predicate.ts";
import type { RequestScope } from "../scope.ts";
import { includeObject, renderEvent, type EventRendering } from "../render.ts";
import { encodeWatchFrame, watchContentType, type WatchFraming } from "../encode.ts";
import { cancelExpiry, scheduleExpiry, type Expiring } from "../watch-deadlines.ts";
import { encodedOnce } from "../encoded-cache.ts";
import { offerDirectBody, type DirectSource } from "../direct-body.ts";

const DEFAULT_MIN_TIMEOUT_S = 1800;

export async function handleWatch(s: RequestScope): Promise<Response> {
  const q = parseListQuery(s.query, true, s.profile.metaGroup);
  const fieldSelector = s.name ? combineNameSelector(q.fieldSelector, s.name) : q.fieldSelector;
  const selection = buildSelection(s.resource.def, q.labelSelector, fieldSelector);
  const framing = framingOf(s);
  const watcher = await s.registry
    .watch({
      namespace: s.namespace,
      resourceVersion: q.resourceVersion,
      resourceVersionMatch: q.resourceVersionMatch,
      sendInitialEvents: q.sendInitialEvents,
      allowWatchBookmarks: q.allowWatchBookmarks,
      predicate: selection.predicate,
    })
    .catch(expiredAsEvent);
  const timeoutMs = watchTimeoutMs(q.timeoutSeconds, DEFAULT_MIN_TIMEOUT_S);
  const body = watchStream(s.request, watcher, framing, timeoutMs, q.allowWatchBookmarks);
  return new Response(body, {
    status: 200,
    headers: { "content-type": watchContentType(framing), "cache-control": "no-cache, private", "transfer-encoding": "chunked" },
  });
}

/**
 * A watch from a version no longer kept (compacted): the platform answers 200 and a
 * stream of one ERROR event carrying the 410 Expired Status, then ends; clients relist
 * on that event. Any other failure stays an HTTP error.
 */
function expiredAsEvent(err: unknown): Watcher {
  if (!(err instanceof StatusError) || err.code !== 410) throw err;
  let sent = false;
  return {
    next: () => {
      if (sent) return Promise.resolve(undefined);
      sent = true;
      return Promise.resolve({ type: "ERROR", object: err.status as unknown as JsonObject, revision: 0 });
    },
    stop: () => {
      sent = true;
    },
  };
}

function combineNameSelector(fieldSelector: string | null, name: string): string {
  const byName = `metadata.name=${name}`;
  return fieldSelector ? `${fieldSelector},${byName}` : byName;
}

/** What a watch keeps of its request: the frame encoding and rendering inputs (not the scope, its request or query). */
type Framing = WatchFraming & EventRendering;

function framingOf(s: RequestScope): Framing {
  // includeObject is read (and a bad value refused) before the watch starts.
  const include = s.target?.kind === "Table" ? includeObject(s) : "Metadata";
  return { encoding: s.encoding, mediaType: s.mediaType, target: s.target, resource: s.resource, profile: s.profile, includeObject: include };
}

/**
 * Frame of an event. Change events are encoded once per event object and variant and
 * shared by all watchers (encoded-cache.ts): the watch cache hands every watcher the same
 * (never mutated) object — for a converted kind, the registry's per-version conversion of
 * it, made once and shared the same way. Table output depends on the watcher (headers)
 * and is not shared.
 */
function frame(ev: WatchEvent, f: Framing, first: boolean): Uint8Array {
  const shareable = !f.target && (ev.type === "ADDED" || ev.type === "MODIFIED" || ev.type === "DELETED");
  if (!shareable) return encodeFrame(ev, f, first);
  // An unnamed callback: the services' loader names each named closure as it is made, at the
  // cost of a slow function object per event (see responseOf in the store's mvcc).
  return encodedOnce(ev.object, `watch|${ev.type}|${f.encoding}|${f.mediaType}|${f.resource.apiVersion}|${f.resource.kind}`, () => encodeFrame(ev, f, first));
}

function encodeFrame(ev: WatchEvent, f: Framing, first: boolean): Uint8Array {
  const object = ev.type === "ERROR" || ev.type === "BOOKMARK" ? bookmarkOrStatus(ev, f) : { apiVersion: f.resource.apiVersion, kind: f.resource.kind, ...ev.object };
  return encodeWatchFrame(f, renderEvent(f, { type: ev.type, object }, first));
}

function bookmarkOrStatus(ev: WatchEvent, f: Framing) {
  if (ev.type === "ERROR") return ev.object;
  return { kind: f.resource.kind, apiVersion: f.resource.apiVersion, ...ev.object };
}

/**
 * The body of one watch: a source that writes the next event when the client is ready
 * for it, one object per watch with its methods on the prototype (no per-watch closures,
 * no suspended async function). It writes either to the node response itself, once the
 * server attached it (direct-body.ts: an idle watch is then this object registered as its
 * queue's consumer, and the response's listeners), or, without one, to its stream when
 * the stream is read (the pending read kept by the stream). It stops taking events while
 * the response is backed up, so a client that stops reading fills its queue and is closed
 * as a slow consumer. The deadline is on the shared timer (watch-deadlines.ts); the
 * client going away (response closed or stream cancelled) stops the watcher.
 */
class WatchSource implements Expiring, EventConsumer, DirectSource {
  private first = true;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private out: ServerResponse | undefined;
  /** The node response refused more until its `drain`. */
  private backedUp = false;
  private done = false;

  constructor(
    private readonly watcher: Watcher,
    private readonly framing: Framing,
    private readonly bookmarks: boolean,
  ) {}

  /** Stream mode: called when the client wants more; an event is enqueued now or when it comes (the stream keeps the read pending meanwhile). */
  pull(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.controller = controller;
    this.request();
  }

  /** Direct mode: the response's head is written; events go to it as they come. */
  attach(out: ServerResponse): void {
    this.out = out;
    (out as AttachedResponse)[SOURCE] = this;
    out.on("drain", onResponseDrain);
    out.on("close", onResponseClose); // once: it removes itself (no once-wrapper per watch)
    if (out.destroyed) this.cancel();
    else this.request();
  }

  /** Takes events while the client can take them; one waits as the queue's consumer when none is queued. */
  private request(): void {
    const w = this.watcher;
    if (!(w instanceof EventQueue)) {
      w.next().then(
        (ev) => this.deliver(ev),
        (err: unknown) => this.fail(err),
      );
      return;
    }
    for (;;) {
      const ev = w.takeOrWait(this);
      if (ev === WAITING) return;
      if (!this.accepts(ev)) continue;
      if (!this.write(ev)) return;
    }
  }

  private accepts(ev: WatchEvent | undefined): boolean {
    return !(ev?.type === "BOOKMARK" && !this.bookmarks);
  }

  /** The queue's next event (undefined: the watch ended). Runs inside the cache's dispatch: never throws. */
  deliver(ev: WatchEvent | undefined): void {
    if (!this.accepts(ev) || this.write(ev)) this.request();
  }

  /** Writes one event (undefined: ends the body); true when the next one may be written at once. */
  private write(ev: WatchEvent | undefined): boolean {
    const { controller, out } = this;
    if (this.done || (!controller && !out)) return false;
    try {
      if (!ev) {
        this.done = true;
        cancelExpiry(this);
        if (out) out.end();
        else controller?.close();
        return false;
      }
      const chunk = frame(ev, this.framing, this.first);
      this.first = false;
      if (!out) {
        controller?.enqueue(chunk); // one event per pull
        return false;
      }
      this.backedUp = !out.write(chunk);
      return !this.backedUp;
    } catch (err) {
      this.fail(err);
      return false;
    }
  }

  drained(): void {
    if (!this.backedUp || this.done) return;
    this.backedUp = false;
    this.request();
  }

  private fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    cancelExpiry(this);
    this.watcher.stop();
    if (this.out) this.out.destroy(err instanceof Error ? err : undefined);
    else this.controller?.error(err);
  }

  cancel(): void {
    this.done = true;
    cancelExpiry(this);
    this.watcher.stop();
  }

  expire(): void {
    this.watcher.stop();
  }
}

const SOURCE = Symbol("watchSource");
type AttachedResponse = ServerResponse & { [SOURCE]?: WatchSource };

/** Shared listeners of every attached response (`this` is the response): no closure per watch. */
function onResponseDrain(this: AttachedResponse): void {
  this[SOURCE]?.drained();
}

function onResponseClose(this: AttachedResponse): void {
  const source = this[SOURCE];
  this[SOURCE] = undefined;
  this.off("drain", onResponseDrain);
  this.off("close", onResponseClose);
  source?.cancel();
}

function watchStream(request: Request, watcher: Watcher, framing: Framing, timeoutMs: number, bookmarks: boolean): ReadableStream<Uint8Array> {
  const source = new WatchSource(watcher, framing, bookmarks);
  scheduleExpiry(source, timeoutMs);
  const stream = new ReadableStream<Uint8Array>(source, { highWaterMark: 0 });
  offerDirectBody(request, stream, source);
  return stream;
}
