import { describe, expect, it } from "vitest";
import { formatFieldError } from "../../../shared/schema/field-errors.ts";
import { microsecondKey, toCoreEvent, toEventsV1Event, validateEventCreate, validateEventUpdate } from "./event-validation.ts";

const SYSTEM = "plat-system";
const T = "2025-03-01T10:00:00.123456Z";
const v1 = (extra: Record<string, unknown> = {}) => ({
  metadata: { name: "e", namespace: "ns1" },
  eventTime: T,
  regarding: { kind: "Pod", namespace: "ns1", name: "p" },
  reportingController: "example.com/ctl",
  reportingInstance: "ctl-1",
  action: "Scheduled",
  reason: "Started",
  type: "Normal",
  ...extra,
});
const texts = (errs: ReturnType<typeof validateEventCreate>) => errs.map(formatFieldError);

describe("events/v1 create", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ["a complete event", {}, []],
    ["no eventTime", { eventTime: undefined }, ["eventTime: Required value"]],
    ["no reporting fields", { reportingController: "", reportingInstance: "", action: "", reason: "" }, [
      "reportingController: Required value",
      'reportingController: Invalid value: "": name part must be non-empty',
      `reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      "reportingInstance: Required value",
      "action: Required value",
      "reason: Required value",
    ]],
    ["long action and note", { action: "a".repeat(129), note: "n".repeat(1025) }, ['action: Invalid value: "": can have at most 128 characters', 'message: Invalid value: "": can have at most 1024 characters']],
    ["a note of exactly 1 KiB", { note: "n".repeat(1024) }, []],
    ["a bad type", { type: "Info" }, ['type: Invalid value: "": has invalid value: Info']],
    ["a series of one", { series: { count: 1, lastObservedTime: T } }, ['series.count: Invalid value: "": should be at least 2']],
    ["a series without time", { series: { count: 2 } }, ["series.lastObservedTime: Required value"]],
    ["deprecated fields set", { deprecatedCount: 3, deprecatedFirstTimestamp: T, deprecatedSource: { component: "x" } }, [
      'firstTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]],
    ["a cluster-scoped regarding in a user namespace", { regarding: { kind: "Node", name: "n1" } }, ['involvedObject.namespace: Invalid value: "": does not match event.namespace']],
    ["a cluster-scoped regarding in the system namespace", { metadata: { name: "e", namespace: SYSTEM }, regarding: { kind: "Node", name: "n1" } }, []],
  ])("%s", (_name, extra, want) => {
    expect(texts(validateEventCreate(v1(extra), "events/v1", SYSTEM))).toEqual(want);
  });
});

describe("core/v1 create (legacy rules only)", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ["an old-style event, any type", { metadata: { name: "e", namespace: "ns1" }, involvedObject: { namespace: "ns1" }, type: "Whatever", count: 4 }, []],
    ["an old-style event in another namespace", { metadata: { name: "e", namespace: "ns1" }, involvedObject: { namespace: "ns2" } }, ['involvedObject.namespace: Invalid value: "ns2": does not match event.namespace']],
    ["a cluster-scoped object's event in default", { metadata: { name: "e", namespace: "default" }, involvedObject: { kind: "Node" } }, []],
    ["a new-style event without reporting component", { metadata: { name: "e", namespace: "ns1" }, involvedObject: { namespace: "ns1" }, eventTime: T, reportingComponent: "ctl", reportingInstance: "i", action: "a" }, ["reason: Required value"]],
    ["a new-style event naming the component by its core field", { metadata: { name: "e", namespace: "ns1" }, involvedObject: { namespace: "ns1" }, eventTime: T, reportingInstance: "i", action: "a", reason: "r" }, [
      "reportingComponent: Required value",
      'reportingComponent: Invalid value: "": name part must be non-empty',
      `reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]],
  ])("%s", (_name, obj, want) => {
    expect(texts(validateEventCreate(obj, "core/v1", SYSTEM))).toEqual(want);
  });
});

describe("events/v1 update", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ["a new series", { series: { count: 2, lastObservedTime: T } }, []],
    ["a bad new series", { series: { count: 0, lastObservedTime: T } }, ['series.count: Invalid value: "": should be at least 2']],
    ["a changed note", { note: "other" }, ['message: Invalid value: "other": field is immutable']],
    ["a changed controller and regarding", { reportingController: "example.com/other", regarding: { kind: "Pod", namespace: "ns1", name: "q" } }, [
      'involvedObject: Invalid value: {"kind":"Pod","namespace":"ns1","name":"q"}: field is immutable',
      'reportingController: Invalid value: "example.com/other": field is immutable',
    ]],
    ["an eventTime changed below a microsecond", { eventTime: "2025-03-01T10:00:00.123456789Z" }, []],
    ["an eventTime changed by a second", { eventTime: "2025-03-01T10:00:01.123456Z" }, ['eventTime: Invalid value: "2025-03-01T10:00:01.123456Z": field is immutable']],
  ])("%s", (_name, extra, want) => {
    expect(texts(validateEventUpdate(v1({ note: "first", ...extra }), v1({ note: "first" }), "events/v1", SYSTEM))).toEqual(want);
  });
});

describe("faces", () => {
  it("core ↔ events/v1 renaming is lossless both ways", () => {
    const ev = v1({ note: "n", deprecatedCount: 2, deprecatedSource: { component: "c" }, related: { kind: "Node" } });
    expect(toEventsV1Event(toCoreEvent(ev))).toEqual(ev);
    const core = toCoreEvent(ev);
    expect(core).toMatchObject({ involvedObject: ev.regarding, message: "n", count: 2, source: { component: "c" }, reportingComponent: "example.com/ctl" });
  });

  it.each([
    ["2025-03-01T10:00:00Z", "2025-03-01T10:00:00.000000Z", true],
    ["2025-03-01T10:00:00.1234569Z", "2025-03-01T10:00:00.123456Z", true],
    ["2025-03-01T11:00:00.5+01:00", "2025-03-01T10:00:00.500000Z", true],
    ["2025-03-01T10:00:00.000001Z", "2025-03-01T10:00:00Z", false],
  ])("microsecond key %s vs %s equal=%s", (a, b, equal) => {
    expect(microsecondKey(a) === microsecondKey(b)).toBe(equal);
  });
});
