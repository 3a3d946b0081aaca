/**
 * events/v1: Event, as Part 2 "Other emitted signals" describes it. Protobuf
 * field numbers are the platform's (events/v1 generated.proto). New events
 * must name what they are about and who reports them: regarding, action,
 * reason, reportingController, reportingInstance and eventTime are required
 * (checked by `validateEvent`, as the platform does on create); the
 * deprecated core-Event counterparts must stay unset on create. Apart from
 * `series`, an event cannot change once written.
 */
import { enumOf, int32, named, obj, str, tag, time, withOpts } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { isQualifiedName } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { getPath, since } from "../table-cells.ts";
import { eventSource, objectReference } from "./core-v1.ts";
import { objectKind } from "./meta-v1.ts";
import { isObj, type Obj } from "./workload-rules.ts";

const E = (name: string, schema: Schema): Schema => named("events", "v1", name, schema);
const fixed = (schema: Schema): Schema => ({ ...schema, immutable: true });
/** `metav1.MicroTime`: a date-time written with six fractional digits. */
const microTime = (description: string): Schema => time({ description: `${description} (RFC 3339 with microseconds).` });

export const ACTION_MAX_LENGTH = 128;
export const REASON_MAX_LENGTH = 128;
export const REPORTING_INSTANCE_MAX_LENGTH = 128;
export const NOTE_MAX_LENGTH = 1024;

export const eventSeries = E(
  "EventSeries",
  obj(
    {
      count: tag(1, int32({ description: "Occurrences in the series up to the last heartbeat." })),
      lastObservedTime: tag(2, microTime("When the last occurrence was seen")),
    },
    { required: ["count", "lastObservedTime"], description: "A series of repeated occurrences of an event." },
  ),
);

export const event = E(
  "Event",
  objectKind({
    eventTime: tag(2, fixed(microTime("When the event was first observed; required"))),
    series: tag(3, withOpts(eventSeries, { description: "The series this event represents; unset for a singleton." })),
    reportingController: tag(4, fixed(str({ description: "Controller that emitted the event (a qualified name); required." }))),
    reportingInstance: tag(5, fixed(str({ description: "Instance of the controller (at most 128 characters); required." }))),
    action: tag(6, fixed(str({ description: "What was done or failed regarding the object, machine-readable (at most 128 characters); required." }))),
    reason: tag(7, fixed(str({ description: "Why the action was taken, human-readable (at most 128 characters); required." }))),
    regarding: tag(8, fixed(withOpts(objectReference, { description: "The object the event is about; required." }))),
    related: tag(9, fixed(withOpts(objectReference, { description: "A secondary object of more complex actions." }))),
    note: tag(10, fixed(str({ description: "Human-readable description of the status (at most 1 kB)." }))),
    type: tag(11, fixed(enumOf(["Normal", "Warning"], { description: "Type of the event." }))),
    deprecatedSource: tag(12, fixed(withOpts(eventSource, { description: "Deprecated: source of the core/v1 form; unset on create." }))),
    deprecatedFirstTimestamp: tag(13, fixed(time({ description: "Deprecated: firstTimestamp of the core/v1 form; unset on create." }))),
    deprecatedLastTimestamp: tag(14, fixed(time({ description: "Deprecated: lastTimestamp of the core/v1 form; unset on create." }))),
    deprecatedCount: tag(15, fixed(int32({ description: "Deprecated: count of the core/v1 form; unset on create." }))),
  }),
);

const isEmpty = (v: unknown): boolean => v === undefined || v === null || v === "";

/** Create-time rules of events/v1 (`ValidateEventCreate` for this version). */
export function validateEvent(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObj(o.regarding)) errs.push(fieldErrors.required("regarding"));
  if (isEmpty(o.eventTime)) errs.push(fieldErrors.required("eventTime"));
  if (isEmpty(o.reportingController)) errs.push(fieldErrors.required("reportingController"));
  else if (typeof o.reportingController === "string") {
    for (const msg of isQualifiedName(o.reportingController)) errs.push(fieldErrors.invalid("reportingController", o.reportingController, msg));
  }
  const limited: Array<[string, number]> = [
    ["reportingInstance", REPORTING_INSTANCE_MAX_LENGTH],
    ["action", ACTION_MAX_LENGTH],
    ["reason", REASON_MAX_LENGTH],
  ];
  for (const [field, max] of limited) {
    const v = o[field];
    if (isEmpty(v)) errs.push(fieldErrors.required(field));
    else if (typeof v === "string" && v.length > max) errs.push(fieldErrors.invalid(field, "", `can have at most ${max} characters`));
  }
  if (typeof o.note === "string" && o.note.length > NOTE_MAX_LENGTH) {
    errs.push(fieldErrors.invalid("note", "", `can have at most ${NOTE_MAX_LENGTH} characters`));
  }
  if (isObj(o.series)) {
    if (typeof o.series.count === "number" && o.series.count < 2) errs.push(fieldErrors.invalid("series.count", "", "should be at least 2"));
    // An absent time is the schema's Required error; an empty one is reported here.
    if (o.series.lastObservedTime === "") errs.push(fieldErrors.required("series.lastObservedTime"));
  }
  for (const field of ["deprecatedFirstTimestamp", "deprecatedLastTimestamp"]) {
    if (!isEmpty(o[field])) errs.push(fieldErrors.invalid(field, "", "needs to be unset"));
  }
  if (typeof o.deprecatedCount === "number" && o.deprecatedCount !== 0) errs.push(fieldErrors.invalid("deprecatedCount", "", "needs to be unset"));
  if (isObj(o.deprecatedSource) && (!isEmpty(o.deprecatedSource.component) || !isEmpty(o.deprecatedSource.host))) {
    errs.push(fieldErrors.invalid("deprecatedSource", "", "needs to be unset"));
  }
  return errs;
}

// ---------------------------------------------------------------- table cells

function firstSeen(o: Record<string, unknown>): string {
  return o.deprecatedFirstTimestamp ? since(o.deprecatedFirstTimestamp) : since(o.eventTime);
}

function lastSeen(o: Record<string, unknown>): string {
  if (isObj(o.series)) return since(o.series.lastObservedTime);
  return o.deprecatedLastTimestamp ? since(o.deprecatedLastTimestamp) : firstSeen(o);
}

function count(o: Record<string, unknown>): number {
  if (isObj(o.series) && typeof o.series.count === "number") return o.series.count;
  return typeof o.deprecatedCount === "number" && o.deprecatedCount !== 0 ? o.deprecatedCount : 1;
}

function objectCell(o: Record<string, unknown>): string {
  const kind = String(getPath(o, "regarding.kind") ?? "").toLowerCase();
  const name = getPath(o, "regarding.name");
  return typeof name === "string" && name !== "" ? `${kind}/${name}` : kind;
}

function sourceCell(o: Record<string, unknown>): string {
  const component = String(getPath(o, "deprecatedSource.component") ?? "") || String(o.reportingController ?? "");
  const host = String(getPath(o, "deprecatedSource.host") ?? "") || String(o.reportingInstance ?? "");
  return host ? `${component}, ${host}` : component;
}

export const kinds: KindDefinition[] = [
  {
    group: "events",
    version: "v1",
    kind: "Event",
    plural: "events",
    singular: "event",
    namespaced: true,
    shortNames: ["ev"],
    schema: event,
    protobuf: true,
    validateKind: validateEvent,
    // The platform's field labels of this version (it reads them from the stored core/v1 event).
    selectableFields: [
      "regarding.kind",
      "regarding.namespace",
      "regarding.name",
      "regarding.uid",
      "regarding.apiVersion",
      "regarding.resourceVersion",
      "regarding.fieldPath",
      "reason",
      "reportingController",
      "source",
      "type",
    ],
    // The platform prints no leading Name column for events (Name is a wide column at the end).
    tableColumns: [
      { name: "Last Seen", type: "string", description: "Time of the last occurrence.", cell: lastSeen },
      { name: "Type", type: "string", description: "Type of the event.", cell: (o) => String(o.type ?? "") },
      { name: "Reason", type: "string", description: "Why the action was taken.", cell: (o) => String(o.reason ?? "") },
      { name: "Object", type: "string", description: "The object the event is about.", cell: objectCell },
      { name: "Subobject", type: "string", priority: 1, description: "Part of the object the event is about.", cell: (o) => String(getPath(o, "regarding.fieldPath") ?? "") },
      { name: "Source", type: "string", priority: 1, description: "Who reported the event.", cell: sourceCell },
      { name: "Message", type: "string", description: "Human-readable description.", cell: (o) => String(o.note ?? "").trim() },
      { name: "First Seen", type: "string", priority: 1, description: "Time of the first occurrence.", cell: firstSeen },
      { name: "Count", type: "string", priority: 1, description: "Number of occurrences.", cell: count },
    ],
  },
];
