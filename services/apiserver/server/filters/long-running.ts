/**
 * Long-running requests (watches, proxies, and the streaming subresources log,
 * exec, attach, portforward) have no deadline and take no in-flight seat, as in
 * the platform's `LongRunningFunc`.
 */
import type { RequestInfo } from "../../endpoints/request-info.ts";

const LONG_RUNNING_VERBS = new Set(["watch", "proxy"]);
const LONG_RUNNING_SUBRESOURCES = new Set(["log", "exec", "attach", "portforward", "proxy"]);

export function isLongRunning(info: RequestInfo): boolean {
  return LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}
