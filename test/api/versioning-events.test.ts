/**
 * Event validation through HTTPS (issue 24), both faces on one replica:
 * - events/v1 creates need eventTime, a Normal/Warning type, the reporting fields, a note of
 *   at most 1 KiB and a valid series, and refuse the deprecated core fields (422 Invalid
 *   with the platform's core-field paths: message, count, firstTimestamp, source);
 * - an events/v1 update may change only the series (others: "field is immutable");
 * - core/v1 keeps the legacy rules: any type for old-style events, namespace agreement,
 *   reportingComponent required once eventTime is set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let eventsPath: string;
const T = "2025-03-01T10:00:00.123456Z";

beforeAll(async () => {
  api = await startTestApiserver();
  eventsPath = `/apis/${api.profile.group("events")}/v1/namespaces/default/events`;
}, 30_000);
afterAll(async () => {
  await api?.close();
});

function v1Event(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: `${api.profile.group("events")}/v1`,
    kind: "Event",
    metadata: { name, namespace: "default" },
    eventTime: T,
    regarding: { kind: "Pod", namespace: "default", name: "p" },
    reportingController: "example.com/scheduler",
    reportingInstance: "scheduler-1",
    action: "Binding",
    reason: "Scheduled",
    type: "Normal",
    note: "assigned",
    ...extra,
  };
}

interface StatusBody {
  code: number;
  reason: string;
  message: string;
  details?: { causes?: Array<{ field: string; message: string }> };
}

describe("events/v1 create", () => {
  it("accepts a complete event and a note of exactly 1 KiB", async () => {
    expect((await api.admin.post(eventsPath, v1Event("ok-1"))).status).toBe(201);
    expect((await api.admin.post(eventsPath, v1Event("ok-2", { note: "n".repeat(1024) }))).status).toBe(201);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ["missing reporting fields", { action: undefined, reportingInstance: undefined, reason: undefined }, ["reportingInstance: Required value", "action: Required value", "reason: Required value"]],
    // Without an eventTime the platform checks it as an old-style event first: only eventTime is reported.
    ["a missing eventTime", { eventTime: undefined, action: undefined }, ["eventTime: Required value"]],
    ["a note over 1 KiB", { note: "n".repeat(1025) }, ['message: Invalid value: "": can have at most 1024 characters']],
    ["a series of one", { series: { count: 1, lastObservedTime: T } }, ['series.count: Invalid value: "": should be at least 2']],
    ["a bad type", { type: "Info" }, ['type: Invalid value: "": has invalid value: Info']],
    ["the deprecated fields", { deprecatedCount: 2, deprecatedLastTimestamp: "2025-03-01T10:00:00Z" }, ['lastTimestamp: Invalid value: "": needs to be unset', 'count: Invalid value: "": needs to be unset']],
  ])("refuses %s with 422 and the platform's messages", async (_name, extra, messages) => {
    const res = await api.admin.post(eventsPath, v1Event("bad", extra));
    expect(res.status).toBe(422);
    const status = res.json<StatusBody>();
    expect(status.reason).toBe("Invalid");
    for (const m of messages) expect(status.message).toContain(m);
    const causes = (status.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
    for (const m of messages) expect(causes).toContain(m);
  });
});

describe("events/v1 update", () => {
  it("allows a new series and refuses any other change as immutable", async () => {
    const created = (await api.admin.post(eventsPath, v1Event("upd"))).json<Record<string, unknown>>();
    const withSeries = { ...created, series: { count: 2, lastObservedTime: "2025-03-01T10:05:00.000000Z" } };
    const updated = await api.admin.put(`${eventsPath}/upd`, withSeries);
    expect(updated.status, updated.text).toBe(200);
    const res = await api.admin.put(`${eventsPath}/upd`, { ...updated.json<Record<string, unknown>>(), note: "changed", reportingInstance: "scheduler-2" });
    expect(res.status).toBe(422);
    const message = res.json<StatusBody>().message;
    expect(message).toContain('message: Invalid value: "changed": field is immutable');
    expect(message).toContain('reportingInstance: Invalid value: "scheduler-2": field is immutable');
  });
});

describe("core/v1 events keep the legacy rules", () => {
  const corePath = "/api/v1/namespaces/default/events";

  it("an old-style event may carry any type and count", async () => {
    const res = await api.admin.post(corePath, { apiVersion: "v1", kind: "Event", metadata: { name: "old" }, involvedObject: { kind: "Pod", namespace: "default", name: "p" }, type: "Custom", count: 3, reason: "R" });
    expect(res.status, res.text).toBe(201);
  });

  it("refuses an involved object of another namespace and a new-style event without reportingComponent", async () => {
    const other = await api.admin.post(corePath, { apiVersion: "v1", kind: "Event", metadata: { name: "other" }, involvedObject: { kind: "Pod", namespace: "kube", name: "p" } });
    expect(other.status).toBe(422);
    expect(other.json<StatusBody>().message).toContain('involvedObject.namespace: Invalid value: "kube": does not match event.namespace');
    const newStyle = await api.admin.post(corePath, { apiVersion: "v1", kind: "Event", metadata: { name: "new" }, involvedObject: { kind: "Pod", namespace: "default", name: "p" }, eventTime: T, reportingInstance: "i", action: "a", reason: "r" });
    expect(newStyle.status).toBe(422);
    expect(newStyle.json<StatusBody>().message).toContain("reportingComponent: Required value");
  });
});
