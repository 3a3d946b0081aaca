/**
 * Watch: a chunked stream of `{type, object}` documents, one per line. Ends after
 * `timeoutSeconds` (default: a random time between 30 and 60 minutes), when the
 * client goes away, or when the server closes the watcher (slow consumer, cache
 * reset — the latter with an ERROR event carrying a 410 Status). A watch from a
 * compacted version is answered the same way: 200 and one ERROR event. An idle watch keeps
 * little: its source object, framing inputs, the cache's watcher and one pending read.
 */
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
  const body = watchStream(watcher, framing, timeoutMs, q.allowWatchBookmarks);
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
  const encode = (): Uint8Array => {
    const object = ev.type === "ERROR" || ev.type === "BOOKMARK" ? bookmarkOrStatus(ev, f) : { apiVersion: f.resource.apiVersion, kind: f.resource.kind, ...ev.object };
    return encodeWatchFrame(f, renderEvent(f, { type: ev.type, object }, first));
  };
  const shareable = !f.target && (ev.type === "ADDED" || ev.type === "MODIFIED" || ev.type === "DELETED");
  if (!shareable) return encode();
  return encodedOnce(ev.object, `watch|${ev.type}|${f.encoding}|${f.mediaType}|${f.resource.apiVersion}|${f.resource.kind}`, encode);
}

function bookmarkOrStatus(ev: WatchEvent, f: Framing) {
  if (ev.type === "ERROR") return ev.object;
  return { kind: f.resource.kind, apiVersion: f.resource.apiVersion, ...ev.object };
}

/**
 * The body of one watch: a pull-based source that writes the next event when the
 * client is ready for it. One object per watch with its methods on the prototype (no
 * per-watch closures, no suspended async function): an idle watch is this object
 * registered as its queue's consumer (`takeOrWait`), the stream's pending read and
 * nothing else. The deadline is on the shared timer (watch-deadlines.ts); the client
 * going away cancels the stream, which stops the watcher.
 */
class WatchSource implements Expiring, EventConsumer {
  private first = true;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private done = false;

  constructor(
    private readonly watcher: Watcher,
    private readonly framing: Framing,
    private readonly bookmarks: boolean,
  ) {}

  /** Called when the client wants more; an event is enqueued now or when it comes (the stream keeps the read pending meanwhile). */
  pull(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.controller = controller;
    this.request();
  }

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
      this.deliver(ev);
      return;
    }
  }

  private accepts(ev: WatchEvent | undefined): boolean {
    return !(ev?.type === "BOOKMARK" && !this.bookmarks);
  }

  /** The queue's next event (undefined: the watch ended). Runs inside the cache's dispatch: never throws. */
  deliver(ev: WatchEvent | undefined): void {
    const controller = this.controller;
    if (this.done || !controller) return;
    if (!this.accepts(ev)) {
      this.request();
      return;
    }
    try {
      if (!ev) {
        this.done = true;
        cancelExpiry(this);
        controller.close();
        return;
      }
      controller.enqueue(frame(ev, this.framing, this.first));
      this.first = false;
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    cancelExpiry(this);
    this.watcher.stop();
    this.controller?.error(err);
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

function watchStream(watcher: Watcher, framing: Framing, timeoutMs: number, bookmarks: boolean): ReadableStream<Uint8Array> {
  const source = new WatchSource(watcher, framing, bookmarks);
  scheduleExpiry(source, timeoutMs);
  return new ReadableStream<Uint8Array>(source, { highWaterMark: 0 });
}
