/**
 * core/v1 Event (the classic event record; events/v1 is its newer face).
 */
import { int32, obj, str, tag, time } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition } from "../../schema/types.ts";
import { numAt, since, strAt } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { C, objectReference } from "./core-v1-common.ts";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export const eventSource = C("EventSource", obj({ component: tag(1, str()), host: tag(2, str()) }, { description: "Component that reported the event." }));

export const eventSeries = C(
  "EventSeries",
  obj({ count: tag(1, int32()), lastObservedTime: tag(2, time({ description: "Microsecond-precision time." })) }, { description: "A series of repeated events." }),
);

function eventTarget(o: Obj): string {
  const kind = strAt(o, "involvedObject.kind").toLowerCase();
  const name = strAt(o, "involvedObject.name");
  return name ? `${kind}/${name}` : kind;
}

function eventFirstSeen(o: Obj): string {
  return strAt(o, "firstTimestamp") ? since(strAt(o, "firstTimestamp")) : since(strAt(o, "eventTime"));
}

function eventLastSeen(o: Obj): string {
  if (isObj(o.series)) return since(strAt(o, "series.lastObservedTime"));
  return strAt(o, "lastTimestamp") ? since(strAt(o, "lastTimestamp")) : eventFirstSeen(o);
}

function eventCount(o: Obj): number {
  if (isObj(o.series)) return numAt(o, "series.count");
  const c = numAt(o, "count");
  return c === 0 ? 1 : c;
}

function eventSourceCell(o: Obj): string {
  const component = strAt(o, "source.component") || strAt(o, "reportingComponent");
  const instance = strAt(o, "source.host") || strAt(o, "reportingInstance");
  return instance ? `${component}, ${instance}` : component;
}

/** Events written through the newer API (with eventTime) carry the reporting fields and a Normal or Warning type. */
function validateEvent(ev: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!strAt(ev, "eventTime")) return errs;
  if (ev.type !== "Normal" && ev.type !== "Warning") errs.push(fieldErrors.notSupported("type", ev.type ?? "", ["Normal", "Warning"]));
  for (const f of ["reportingComponent", "reportingInstance", "action", "reason"]) if (!strAt(ev, f)) errs.push(fieldErrors.required(f));
  if (strAt(ev, "message").length > 1024) errs.push(fieldErrors.tooLong("message", 1024));
  return errs;
}

export const eventKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "Event",
  plural: "events",
  singular: "event",
  namespaced: true,
  shortNames: ["ev"],
  schema: C(
    "Event",
    objectKind(
      {
        involvedObject: tag(2, { ...objectReference, immutable: true }),
        reason: tag(3, str({ description: "Short machine-readable reason." })),
        message: tag(4, str({ description: "Human-readable description." })),
        source: tag(5, eventSource),
        firstTimestamp: tag(6, time()),
        lastTimestamp: tag(7, time()),
        count: tag(8, int32({ description: "Number of occurrences." })),
        type: tag(9, str({ description: "Normal or Warning." })),
        eventTime: tag(10, time({ description: "First observation, microsecond precision." })),
        series: tag(11, eventSeries),
        action: tag(12, str()),
        related: tag(13, objectReference),
        reportingComponent: tag(14, str({ description: "Controller that emitted the event." })),
        reportingInstance: tag(15, str({ description: "Instance of the controller." })),
      },
      { required: ["metadata", "involvedObject"] },
    ),
  ),
  tableColumns: [
    { name: "Last Seen", type: "string", description: "Time since the last occurrence.", cell: eventLastSeen },
    { name: "Type", type: "string", description: "Normal or Warning.", cell: (o) => strAt(o, "type") },
    { name: "Reason", type: "string", description: "Reason.", cell: (o) => strAt(o, "reason") },
    { name: "Object", type: "string", description: "Object the event is about.", cell: eventTarget },
    { name: "Subobject", type: "string", priority: 1, description: "Part of the object.", cell: (o) => strAt(o, "involvedObject.fieldPath") },
    { name: "Source", type: "string", priority: 1, description: "Reporting component.", cell: eventSourceCell },
    { name: "Message", type: "string", description: "Message.", cell: (o) => strAt(o, "message").trim() },
    { name: "First Seen", type: "string", priority: 1, description: "Time since the first occurrence.", cell: eventFirstSeen },
    { name: "Count", type: "string", priority: 1, description: "Occurrences.", cell: eventCount },
  ],
  protobuf: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  selectableFields: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  validateKind: validateEvent,
};

