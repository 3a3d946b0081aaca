/**
 * Watch: a chunked stream of `{type, object}` documents, one per line. Ends after
 * `timeoutSeconds` (default: a random time between 30 and 60 minutes), when the
 * client goes away, or when the server closes the watcher (slow consumer, cache
 * reset — the latter with an ERROR event carrying a 410 Status).
 */
import type { WatchEvent, Watcher } from "../../storage/interface.ts";
import { parseListQuery, watchTimeoutMs } from "../list-options.ts";
import { buildSelection } from "../predicate.ts";
import type { RequestScope } from "../scope.ts";
import { withTypeMeta } from "./read.ts";
import { renderEvent } from "../render.ts";
import { encodeWatchFrame, watchContentType } from "../encode.ts";
import { encodedOnce } from "../encoded-cache.ts";

const DEFAULT_MIN_TIMEOUT_S = 1800;

export async function handleWatch(s: RequestScope): Promise<Response> {
  const q = parseListQuery(s.query, true, s.profile.metaGroup);
  const fieldSelector = s.name ? combineNameSelector(q.fieldSelector, s.name) : q.fieldSelector;
  const selection = buildSelection(s.resource.def, q.labelSelector, fieldSelector);
  const watcher = await s.registry.watch({
    namespace: s.namespace,
    resourceVersion: q.resourceVersion,
    resourceVersionMatch: q.resourceVersionMatch,
    sendInitialEvents: q.sendInitialEvents,
    allowWatchBookmarks: q.allowWatchBookmarks,
    predicate: selection.predicate,
  });
  const timeoutMs = watchTimeoutMs(q.timeoutSeconds, DEFAULT_MIN_TIMEOUT_S);
  const body = watchStream(watcher, s, timeoutMs, q.allowWatchBookmarks);
  return new Response(body, {
    status: 200,
    headers: { "content-type": watchContentType(s), "cache-control": "no-cache, private", "transfer-encoding": "chunked" },
  });
}

function combineNameSelector(fieldSelector: string | null, name: string): string {
  const byName = `metadata.name=${name}`;
  return fieldSelector ? `${fieldSelector},${byName}` : byName;
}

/**
 * Frame of an event. Change events are encoded once per event object and variant and
 * shared by all watchers (encoded-cache.ts): the watch cache hands every watcher the same
 * (never mutated) object — for a converted kind, the registry's per-version conversion of
 * it, made once and shared the same way. Table output depends on the watcher (headers)
 * and is not shared.
 */
function frame(ev: WatchEvent, s: RequestScope, first: boolean): Uint8Array {
  const encode = (): Uint8Array => {
    const object = ev.type === "ERROR" || ev.type === "BOOKMARK" ? bookmarkOrStatus(ev, s) : withTypeMeta(ev.object, s);
    return encodeWatchFrame(s, renderEvent(s, { type: ev.type, object }, first));
  };
  const shareable = !s.target && (ev.type === "ADDED" || ev.type === "MODIFIED" || ev.type === "DELETED");
  if (!shareable) return encode();
  return encodedOnce(ev.object, `watch|${ev.type}|${s.encoding}|${s.mediaType}|${s.resource.apiVersion}|${s.resource.kind}`, encode);
}

function bookmarkOrStatus(ev: WatchEvent, s: RequestScope) {
  if (ev.type === "ERROR") return ev.object;
  return { kind: s.resource.kind, apiVersion: s.resource.apiVersion, ...ev.object };
}

function watchStream(watcher: Watcher, s: RequestScope, timeoutMs: number, bookmarks: boolean): ReadableStream<Uint8Array> {
  let timer: NodeJS.Timeout | undefined;
  let first = true;
  return new ReadableStream<Uint8Array>({
    start() {
      timer = setTimeout(() => watcher.stop(), timeoutMs);
      s.request.signal?.addEventListener("abort", () => watcher.stop());
    },
    async pull(controller) {
      for (;;) {
        const ev = await watcher.next();
        if (!ev) {
          clearTimeout(timer);
          controller.close();
          return;
        }
        if (ev.type === "BOOKMARK" && !bookmarks) continue;
        controller.enqueue(frame(ev, s, first));
        first = false;
        return;
      }
    },
    cancel() {
      clearTimeout(timer);
      watcher.stop();
    },
  });
}
