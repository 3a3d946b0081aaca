/**
 * Event as ONE stored resource served in two API versions, as the platform does:
 * core/v1 Event is the storage form (keys under the core events prefix), and
 * events/v1 Event reads and writes the same objects, renamed field by field
 * (event-validation.ts's EVENTS_V1_TO_CORE: note↔message, regarding↔involvedObject,
 * deprecatedSource↔source, deprecated{First,Last}Timestamp↔{first,last}Timestamp,
 * deprecatedCount↔count, reportingController↔reportingComponent; every other field
 * keeps its name). Both directions are lossless and never mutate their input.
 *
 * Field selectors read the platform's selectable set of the stored event in each
 * version's spelling: core/v1 `involvedObject.*`, `reason`, `reportingComponent`,
 * `source`, `type`; events/v1 `regarding.*`, `reason`, `reportingController`,
 * `source`, `type`. `source` is the source component, or the reporting controller
 * when the event has none.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { JsonObject } from "../storage/object.ts";
import { conversionKey, type KindConversion } from "./conversion.ts";
import { toCoreEvent, toEventsV1Event } from "./event-validation.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

const isObj = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The value of the `source` field label of a stored (core form) event. */
export function eventSourceLabel(stored: Readonly<JsonObject>): string {
  const component = isObj(stored.source) && typeof stored.source.component === "string" ? stored.source.component : "";
  if (component !== "") return component;
  return typeof stored.reportingComponent === "string" ? stored.reportingComponent : "";
}

/** A copy of `obj` whose apiVersion is `apiVersion` (kept in its place when present). */
function withApiVersion(obj: JsonObject, apiVersion: string): JsonObject {
  return "apiVersion" in obj ? { ...obj, apiVersion } : { apiVersion, ...obj };
}

/** The conversions of Event: `core/Event` (the storage version) and `events/Event` (stored as core/v1). */
export function eventConversions(profile: PlatformProfile): Array<[string, KindConversion]> {
  const coreVersion = profile.apiVersion("core", "v1");
  const eventsVersion = profile.apiVersion("events", "v1");
  const core: KindConversion = {
    storageVersion: "v1",
    versions: {
      v1: {
        // The storage form itself: no copy, so core/v1 reads share the watch cache's objects as before.
        toStorage: (o) => o,
        fromStorage: (o) => o,
        fieldSelectorView: (stored) => ({ ...stored, source: eventSourceLabel(stored) }),
      },
    },
  };
  const events: KindConversion = {
    storageGroup: "core",
    storageVersion: "v1",
    versions: {
      v1: {
        toStorage: (o) => withApiVersion(toCoreEvent(cloneValue(o)), coreVersion),
        fromStorage: (o) => withApiVersion(toEventsV1Event(cloneValue(o)), eventsVersion),
        fieldSelectorView: (stored) => ({ ...toEventsV1Event(stored), source: eventSourceLabel(stored) }),
      },
    },
  };
  return [
    [conversionKey("core", "Event"), core],
    [conversionKey("events", "Event"), events],
  ];
}
