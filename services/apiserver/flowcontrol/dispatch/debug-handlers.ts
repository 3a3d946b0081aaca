/**
 * `/debug/api_priority_and_fairness/dump_priority_levels`, `dump_queues` and
 * `dump_requests` (`?includeRequestDetails=1` adds the request columns): plain text in
 * the platform's columns, served on the non-resource router, so authorized like every
 * other `/debug` path.
 */
import type { NonResourceHandler } from "../../endpoints/non-resource.ts";
import type { FlowController } from "./controller.ts";

export const APF_DEBUG_PREFIX = "/debug/api_priority_and_fairness";

function text(body: string): Response {
  return new Response(body, { status: 200, headers: { "content-type": "text/plain; charset=utf-8" } });
}

export function apfDebugRoutes(controller: FlowController): Array<[string, NonResourceHandler]> {
  return [
    [`${APF_DEBUG_PREFIX}/dump_priority_levels`, async () => text(controller.dumpPriorityLevels())],
    [`${APF_DEBUG_PREFIX}/dump_queues`, async () => text(controller.dumpQueues())],
    [`${APF_DEBUG_PREFIX}/dump_requests`, async (_req, url) => text(controller.dumpRequests((url.searchParams.get("includeRequestDetails") ?? "") !== ""))],
  ];
}
