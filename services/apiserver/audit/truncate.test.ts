import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { truncatedAnnotation, truncateEvents } from "./truncate.ts";

const profile = getProfile("kubernetes");

function event(id: string, level: AuditEvent["level"], bodyBytes: number, uriBytes = 0): AuditEvent {
  const e: AuditEvent = { auditID: id, level, stage: "ResponseComplete", requestURI: `/api/v1/configmaps${"x".repeat(uriBytes)}`, verb: "create", user: { username: "u", groups: [] } };
  if (bodyBytes > 0) e.requestObject = { data: { v: "y".repeat(bodyBytes) } };
  return e;
}

describe("audit event truncation", () => {
  const opts = { maxEventSize: 1000, maxBatchSize: 2500 };
  it.each([
    ["a small event passes untouched", [event("a", "Request", 100)], [["a"]], 0, []],
    ["a large Request event loses its objects and is annotated", [event("b", "Request", 5000)], [["b"]], 0, ["b"]],
    ["a large Metadata event is dropped (nothing to strip)", [event("c", "Metadata", 0, 5000)], [], 1, []],
    ["an event still too large after stripping is dropped", [event("d", "RequestResponse", 5000, 5000)], [], 1, []],
    ["batches stay within the batch size", [event("e1", "Request", 600), event("e2", "Request", 600), event("e3", "Request", 600), event("e4", "Request", 600)], [["e1", "e2", "e3"], ["e4"]], 0, []],
  ])("%s", (_label, events, batches, dropped, truncated) => {
    const out = truncateEvents(profile, events, opts);
    expect(out.batches.map((b) => b.map((e) => e.auditID))).toEqual(batches);
    expect(out.dropped).toBe(dropped);
    const marked = out.batches.flat().filter((e) => e.annotations?.[truncatedAnnotation(profile)] === "true");
    expect(marked.map((e) => e.auditID)).toEqual(truncated);
    for (const e of marked) expect(e.requestObject).toBeUndefined();
  });
});
