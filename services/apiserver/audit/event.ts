/**
 * The audit Event object (audit.<profile domain>/v1, kind Event) as backends write
 * it, built from the request context's event; timestamps in the platform's
 * microsecond RFC 3339 form. `EventList` wraps a batch for the webhook backend.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { AuditEvent } from "../server/filters/with-audit.ts";
import { auditApiVersion } from "./policy.ts";

export type AuditEventObject = { kind: "Event"; apiVersion: string } & AuditEvent;

/** `2006-01-02T15:04:05.000000Z` from a millisecond time. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

export function eventObject(profile: PlatformProfile, event: Readonly<AuditEvent>): AuditEventObject {
  return { kind: "Event", apiVersion: auditApiVersion(profile), ...event };
}

export function eventList(profile: PlatformProfile, events: readonly AuditEventObject[]): Record<string, unknown> {
  return { kind: "EventList", apiVersion: auditApiVersion(profile), metadata: {}, items: events };
}
