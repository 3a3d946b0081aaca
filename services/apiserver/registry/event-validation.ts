/**
 * Validation of Events as the platform does it for both of their faces, core/v1 Event and
 * events/v1 Event. Pure: objects in, field errors out.
 *
 * Contract (release 1.35 rules):
 * - Both faces are read in the core form (`toCoreEvent`): regarding→involvedObject,
 *   note→message, deprecatedSource→source, deprecated{First,Last}Timestamp→
 *   {first,last}Timestamp, deprecatedCount→count, reportingController→reportingComponent.
 *   Error paths name the core fields, as the platform's messages do, except that the
 *   reporting controller is `reportingController` for events/v1 requests.
 * - Every request gets the legacy checks: without an eventTime, the event's namespace must
 *   match involvedObject.namespace (an empty one allows "" and "default"); with one,
 *   involvedObject.namespace may be empty only in "default" or the system namespace, and
 *   reportingController (a qualified name), reportingInstance (≤128), action (≤128),
 *   reason (≤128) are required and message is at most 1024 characters.
 * - events/v1 creates add: eventTime required, type Normal or Warning, series count ≥ 2
 *   with a lastObservedTime, and the deprecated fields unset.
 * - events/v1 updates add: series checked again when it changed, and every field but the
 *   series immutable (eventTime compared at microsecond precision).
 */
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import { isQualifiedName } from "../../../shared/schema/formats.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { deepEqual } from "../../../shared/schema/values.ts";

type Obj = Record<string, unknown>;

export type EventFace = "core/v1" | "events/v1";

export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;

/** events/v1 field ↔ core/v1 field, for the fields whose names differ. */
export const EVENTS_V1_TO_CORE: ReadonlyArray<readonly [string, string]> = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
  ["reportingController", "reportingComponent"],
];

function renamed(o: Obj, pairs: ReadonlyArray<readonly [string, string]>): Obj {
  const out: Obj = {};
  const rename = new Map(pairs);
  for (const [k, v] of Object.entries(o)) out[rename.get(k) ?? k] = v;
  return out;
}

/** The core/v1 form of an events/v1 Event (apiVersion aside). Pure. */
export function toCoreEvent(o: Obj): Obj {
  return renamed(o, EVENTS_V1_TO_CORE);
}

/** The events/v1 form of a core/v1 Event (apiVersion aside). Pure. */
export function toEventsV1Event(o: Obj): Obj {
  return renamed(
    o,
    EVENTS_V1_TO_CORE.map(([a, b]) => [b, a] as const),
  );
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const unsetTime = (v: unknown): boolean => v === undefined || v === null || v === "";

function namespaceOf(o: Obj): string {
  return isObj(o.metadata) ? str(o.metadata.namespace) : "";
}

function legacyChecks(ev: Obj, face: EventFace, systemNamespace: string): FieldError[] {
  const errs: FieldError[] = [];
  const involved = isObj(ev.involvedObject) ? ev.involvedObject : {};
  const involvedNs = str(involved.namespace);
  const ns = namespaceOf(ev);
  const mismatch = () => fieldErrors.invalid("involvedObject.namespace", involvedNs, "does not match event.namespace");
  if (unsetTime(ev.eventTime)) {
    if (involvedNs === "" ? ns !== "" && ns !== "default" : ns !== involvedNs) errs.push(mismatch());
    return errs;
  }
  if (involvedNs === "" && ns !== "default" && ns !== systemNamespace) errs.push(mismatch());
  const controllerField = face === "core/v1" ? "reportingComponent" : "reportingController";
  const controller = str(ev.reportingComponent);
  if (controller === "") errs.push(fieldErrors.required(controllerField));
  for (const msg of isQualifiedName(controller)) errs.push(fieldErrors.invalid(controllerField, controller, msg));
  const limited: ReadonlyArray<readonly [string, number]> = [
    ["reportingInstance", REPORTING_INSTANCE_LENGTH_LIMIT],
    ["action", ACTION_LENGTH_LIMIT],
    ["reason", REASON_LENGTH_LIMIT],
  ];
  for (const [field, max] of limited) {
    const v = str(ev[field]);
    if (v === "") errs.push(fieldErrors.required(field));
    if (v.length > max) errs.push(fieldErrors.invalid(field, "", `can have at most ${max} characters`));
  }
  if (str(ev.message).length > NOTE_LENGTH_LIMIT) errs.push(fieldErrors.invalid("message", "", `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  return errs;
}

function seriesChecks(ev: Obj): FieldError[] {
  if (!isObj(ev.series)) return [];
  const errs: FieldError[] = [];
  const count = typeof ev.series.count === "number" ? ev.series.count : 0;
  if (count < 2) errs.push(fieldErrors.invalid("series.count", "", "should be at least 2"));
  if (unsetTime(ev.series.lastObservedTime)) errs.push(fieldErrors.required("series.lastObservedTime"));
  return errs;
}

/** Errors of a new Event sent through `face` (the object in that face's form). */
export function validateEventCreate(obj: Obj, face: EventFace, systemNamespace: string): FieldError[] {
  const ev = face === "events/v1" ? toCoreEvent(obj) : obj;
  const errs = legacyChecks(ev, face, systemNamespace);
  if (face === "core/v1") return errs;
  errs.push(...seriesChecks(ev));
  if (unsetTime(ev.eventTime)) errs.push(fieldErrors.required("eventTime"));
  if (ev.type !== "Normal" && ev.type !== "Warning") errs.push(fieldErrors.invalid("type", "", `has invalid value: ${str(ev.type)}`));
  if (!unsetTime(ev.firstTimestamp)) errs.push(fieldErrors.invalid("firstTimestamp", "", "needs to be unset"));
  if (!unsetTime(ev.lastTimestamp)) errs.push(fieldErrors.invalid("lastTimestamp", "", "needs to be unset"));
  if (typeof ev.count === "number" && ev.count !== 0) errs.push(fieldErrors.invalid("count", "", "needs to be unset"));
  const source = isObj(ev.source) ? ev.source : {};
  if (str(source.component) !== "" || str(source.host) !== "") errs.push(fieldErrors.invalid("source", "", "needs to be unset"));
  return errs;
}

/** A timestamp at microsecond precision (`<epoch seconds>.<6 digits>`), or "" when unset/unreadable. */
export function microsecondKey(v: unknown): string {
  if (typeof v !== "string" || v === "") return "";
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(v);
  if (!m) return v;
  const seconds = Date.parse(`${m[1]}${m[3]}`) / 1000;
  return `${seconds}.${(m[2] ?? "").padEnd(6, "0").slice(0, 6)}`;
}

const IMMUTABLE_FIELDS = ["involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "type", "action", "related", "reportingComponent", "reportingInstance"] as const;

/** Errors of an update of `old` into `obj` sent through `face` (both in that face's form). */
export function validateEventUpdate(obj: Obj, old: Obj, face: EventFace, systemNamespace: string): FieldError[] {
  const ev = face === "events/v1" ? toCoreEvent(obj) : obj;
  const was = face === "events/v1" ? toCoreEvent(old) : old;
  const errs = legacyChecks(ev, face, systemNamespace);
  if (face === "core/v1") return errs;
  if (!deepEqual(ev.series ?? null, was.series ?? null)) errs.push(...seriesChecks(ev));
  for (const field of IMMUTABLE_FIELDS) {
    if (!deepEqual(ev[field] ?? null, was[field] ?? null)) {
      const path = field === "reportingComponent" ? "reportingController" : field;
      errs.push(fieldErrors.invalid(path, ev[field] ?? null, "field is immutable"));
    }
  }
  if (microsecondKey(ev.eventTime) !== microsecondKey(was.eventTime)) errs.push(fieldErrors.invalid("eventTime", ev.eventTime ?? null, "field is immutable"));
  return errs;
}
