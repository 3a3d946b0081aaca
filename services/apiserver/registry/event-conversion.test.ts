import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { conversionKey, type VersionConverter } from "./conversion.ts";
import { eventConversions, eventSourceLabel } from "./event-conversion.ts";

const profile = getProfile("kubernetes");
const table = new Map(eventConversions(profile));
const converter = (group: string): VersionConverter => {
  const c = table.get(conversionKey(group, "Event"))?.versions.v1;
  if (!c) throw new Error(`no converter for ${group}/Event`);
  return c;
};
const eventsApiVersion = profile.apiVersion("events", "v1");

const stored = {
  apiVersion: "v1",
  kind: "Event",
  metadata: { name: "e", namespace: "default", managedFields: [{ manager: "m", apiVersion: eventsApiVersion, operation: "Update", fieldsType: "FieldsV1", fieldsV1: { "f:note": {} } }] },
  involvedObject: { kind: "Pod", namespace: "default", name: "p" },
  related: { kind: "Node", name: "n" },
  message: "hello",
  reason: "Started",
  source: { component: "agent", host: "h" },
  firstTimestamp: "2025-03-01T10:00:00Z",
  lastTimestamp: "2025-03-01T10:01:00Z",
  count: 3,
  type: "Warning",
  eventTime: "2025-03-01T10:00:00.123456Z",
  series: { count: 2, lastObservedTime: "2025-03-01T10:02:00.000000Z" },
  action: "Start",
  reportingComponent: "example.com/agent",
  reportingInstance: "agent-1",
};

describe("Event conversions", () => {
  it("make core/v1 the storage version of both, events/v1 stored in the core group", () => {
    expect(table.get(conversionKey("events", "Event"))).toMatchObject({ storageGroup: "core", storageVersion: "v1" });
    expect(table.get(conversionKey("core", "Event"))?.storageGroup).toBeUndefined();
  });

  it("events/v1 renames every differing field and keeps the rest, managedFields included", () => {
    const out = converter("events").fromStorage(structuredClone(stored));
    expect(out).toEqual({
      apiVersion: eventsApiVersion,
      kind: "Event",
      metadata: stored.metadata,
      regarding: stored.involvedObject,
      related: stored.related,
      note: "hello",
      reason: "Started",
      deprecatedSource: stored.source,
      deprecatedFirstTimestamp: stored.firstTimestamp,
      deprecatedLastTimestamp: stored.lastTimestamp,
      deprecatedCount: 3,
      type: "Warning",
      eventTime: stored.eventTime,
      series: stored.series,
      action: "Start",
      reportingController: "example.com/agent",
      reportingInstance: "agent-1",
    });
    expect(converter("events").toStorage(out)).toEqual(stored);
  });

  it("core/v1 is the storage form itself (no copy); events/v1 neither mutates nor shares its input", () => {
    const input = structuredClone(stored);
    expect(converter("core").fromStorage(input)).toBe(input);
    expect(converter("core").toStorage(input)).toBe(input);
    const out = converter("events").fromStorage(input);
    (out.metadata as { name: string }).name = "changed";
    expect(input).toEqual(stored);
    const back = converter("events").toStorage(out);
    (back.metadata as { namespace: string }).namespace = "changed";
    expect((out.metadata as { namespace: string }).namespace).toBe("default");
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["the source component", { source: { component: "agent" }, reportingComponent: "ctl" }, "agent"],
    ["the reporting controller without a component", { source: { host: "h" }, reportingComponent: "ctl" }, "ctl"],
    ["the reporting controller without a source", { reportingComponent: "ctl" }, "ctl"],
    ["empty when neither is set", {}, ""],
  ])("the source label is %s", (_name, ev, want) => {
    expect(eventSourceLabel(ev)).toBe(want);
  });

  it("each version's field selector view spells the selectable fields its own way", () => {
    const coreView = converter("core").fieldSelectorView?.(stored) ?? {};
    expect(coreView).toMatchObject({ source: "agent", reportingComponent: "example.com/agent", involvedObject: { name: "p" } });
    const eventsView = converter("events").fieldSelectorView?.(stored) ?? {};
    expect(eventsView).toMatchObject({ source: "agent", reportingController: "example.com/agent", regarding: { name: "p" }, reason: "Started", type: "Warning" });
    expect(eventsView).not.toHaveProperty("involvedObject");
  });
});
