/**
 * Events through HTTPS (issue 24), both API versions on one replica (kubernetes profile,
 * so that kubectl 1.34 can read them):
 * - core/v1 and events/v1 Event are one stored resource under the core events key: an
 *   event written through either version is read, listed, watched, updated and deleted
 *   through the other with its fields converted, on one resourceVersion sequence; each
 *   version's field selectors (involvedObject.* / regarding.*, reportingComponent /
 *   reportingController, source) select the same events; `kubectl get events` and
 *   `kubectl events` show an event written through events/v1;
 * Validation:
 * - events/v1 creates need eventTime, a Normal/Warning type, the reporting fields, a note of
 *   at most 1 KiB and a valid series, and refuse the deprecated core fields (422 Invalid
 *   with the platform's core-field paths: message, count, firstTimestamp, source);
 * - an events/v1 update may change only the series (others: "field is immutable");
 * - core/v1 keeps the legacy rules: any type for old-style events, namespace agreement,
 *   reportingComponent required once eventTime is set.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient } from "../support/clients.ts";

let api: TestApiserver;
let eventsPath: string;
const T = "2025-03-01T10:00:00.123456Z";

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
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

  it("a name need only be a path segment through core/v1, a DNS subdomain through events/v1", async () => {
    const res = await api.admin.post(corePath, { apiVersion: "v1", kind: "Event", metadata: { name: "Web_1:x" }, involvedObject: { kind: "Pod", namespace: "default", name: "p" } });
    expect(res.status, res.text).toBe(201);
    expect((await api.admin.get(`${eventsPath}/Web_1:x`)).json()).toMatchObject({ metadata: { name: "Web_1:x" }, regarding: { name: "p" } });
    const strict = await api.admin.post(eventsPath, v1Event("Web_1"));
    expect(strict.status).toBe(422);
    expect(strict.json<StatusBody>().message).toContain('metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of');
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

describe("core/v1 and events/v1 Event are one stored resource", () => {
  const NS = "shared-events";
  const core = `/api/v1/namespaces/${NS}/events`;
  let events: string;
  const newStyle = (name: string, extra: Record<string, unknown> = {}) =>
    v1Event(name, {
      metadata: { name, namespace: NS },
      regarding: { kind: "Pod", namespace: NS, name: "web-1", uid: "u-1", apiVersion: "v1", fieldPath: "spec.containers{web}" },
      related: { kind: "Node", name: "node-a" },
      series: { count: 2, lastObservedTime: "2025-03-01T10:01:00.000000Z" },
      ...extra,
    });
  const oldStyle = (name: string) => ({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: NS },
    involvedObject: { kind: "Pod", namespace: NS, name: "db-1" },
    reason: "Pulled",
    message: "image pulled",
    source: { component: "node-agent", host: "node-b" },
    firstTimestamp: "2025-03-01T09:00:00Z",
    lastTimestamp: "2025-03-01T09:05:00Z",
    count: 4,
    type: "Normal",
  });
  const names = (list: { items: Array<{ metadata: { name: string } }> }) => list.items.map((i) => i.metadata.name).sort();

  beforeAll(async () => {
    events = `/apis/${api.profile.group("events")}/v1/namespaces/${NS}/events`;
    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
  });

  it("an event written through events/v1 is read and watched through core/v1 in the core fields, and stored under the core key", async () => {
    const start = (await api.admin.get(core)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watch = api.admin.watch(`${core}?watch=1&resourceVersion=${start}`);
    try {
      const created = await api.admin.post(events, newStyle("from-new"));
      expect(created.status, created.text).toBe(201);
      const made = created.json<{ metadata: { uid: string; resourceVersion: string } }>();
      const expected = {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "from-new", namespace: NS, uid: made.metadata.uid, resourceVersion: made.metadata.resourceVersion },
        involvedObject: { kind: "Pod", namespace: NS, name: "web-1", uid: "u-1", apiVersion: "v1", fieldPath: "spec.containers{web}" },
        related: { kind: "Node", name: "node-a" },
        message: "assigned",
        reportingComponent: "example.com/scheduler",
        reportingInstance: "scheduler-1",
        action: "Binding",
        reason: "Scheduled",
        type: "Normal",
        eventTime: T,
        series: { count: 2, lastObservedTime: "2025-03-01T10:01:00.000000Z" },
      };
      const read = (await api.admin.get(`${core}/from-new`)).json<Record<string, unknown>>();
      expect(read).toMatchObject(expected);
      for (const field of ["note", "regarding", "reportingController", "deprecatedSource", "deprecatedCount"]) expect(read).not.toHaveProperty(field);
      const [added] = await watch.waitFor(1);
      expect(added).toMatchObject({ type: "ADDED", object: expected });
    } finally {
      watch.stop();
    }
    const stored = await api.kv.range(`/registry/core/events/${NS}/`, { end: `/registry/core/events/${NS}0` });
    expect(stored.kvs.map((kv) => Buffer.from(kv.key).toString())).toContain(`/registry/core/events/${NS}/from-new`);
    expect((await api.kv.range("/registry/events/", { end: "/registry/events0" })).kvs).toHaveLength(0);
  });

  it("an event written through core/v1 is read, listed and watched through events/v1 with the deprecated fields", async () => {
    const start = (await api.admin.get(events)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    // The watch's field selector speaks events/v1 (regarding.name): only this event passes it.
    const watch = api.admin.watch(`${events}?watch=1&resourceVersion=${start}&fieldSelector=${encodeURIComponent("regarding.name=db-1")}`);
    try {
      expect((await api.admin.post(core, { ...oldStyle("other-object"), involvedObject: { kind: "Pod", namespace: NS, name: "db-2" } })).status).toBe(201);
      const created = await api.admin.post(core, oldStyle("from-old"));
      expect(created.status, created.text).toBe(201);
      const expected = {
        apiVersion: `${api.profile.group("events")}/v1`,
        kind: "Event",
        metadata: { name: "from-old", namespace: NS, resourceVersion: created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion },
        regarding: { kind: "Pod", namespace: NS, name: "db-1" },
        note: "image pulled",
        reason: "Pulled",
        type: "Normal",
        deprecatedSource: { component: "node-agent", host: "node-b" },
        deprecatedFirstTimestamp: "2025-03-01T09:00:00Z",
        deprecatedLastTimestamp: "2025-03-01T09:05:00Z",
        deprecatedCount: 4,
      };
      const read = (await api.admin.get(`${events}/from-old`)).json<Record<string, unknown>>();
      expect(read).toMatchObject(expected);
      for (const field of ["message", "involvedObject", "source", "count", "firstTimestamp", "lastTimestamp"]) expect(read).not.toHaveProperty(field);
      const [added] = await watch.waitFor(1);
      expect(added).toMatchObject({ type: "ADDED", object: expected });
    } finally {
      watch.stop();
    }
    expect((await api.admin.delete(`${core}/other-object`)).status).toBe(200);
    const viaEvents = (await api.admin.get(events)).json<{ metadata: { resourceVersion: string }; items: Array<{ metadata: { name: string } }> }>();
    const viaCore = (await api.admin.get(core)).json<{ metadata: { resourceVersion: string }; items: Array<{ metadata: { name: string } }> }>();
    expect(names(viaEvents)).toEqual(["from-new", "from-old"]);
    expect(names(viaCore)).toEqual(["from-new", "from-old"]);
    expect(viaEvents.metadata.resourceVersion).toBe(viaCore.metadata.resourceVersion);
  });

  it("writes through both versions take one resourceVersion sequence, and an update through one is seen through the other", async () => {
    const rvs: number[] = [];
    for (const [path, body] of [
      [core, oldStyle("seq-1")],
      [events, newStyle("seq-2")],
      [core, oldStyle("seq-3")],
    ] as const) {
      const res = await api.admin.post(path, body);
      expect(res.status, res.text).toBe(201);
      rvs.push(Number(res.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion));
    }
    expect(rvs[1]).toBeGreaterThan(rvs[0]);
    expect(rvs[2]).toBeGreaterThan(rvs[1]);
    const patched = await api.admin.patch(`${core}/seq-2`, { count: 7, lastTimestamp: "2025-03-01T10:09:00Z" }, "application/merge-patch+json");
    expect(patched.status, patched.text).toBe(200);
    const after = (await api.admin.get(`${events}/seq-2`)).json<Record<string, unknown> & { metadata: { resourceVersion: string } }>();
    expect(after).toMatchObject({ deprecatedCount: 7, deprecatedLastTimestamp: "2025-03-01T10:09:00Z", note: "assigned" });
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(rvs[2]);
    // events/v1 keeps its own rules on an event written through core/v1: only the series may change.
    const refused = await api.admin.put(`${events}/seq-2`, { ...after, note: "changed" });
    expect(refused.status).toBe(422);
    expect(refused.json<StatusBody>().message).toContain('message: Invalid value: "changed": field is immutable');
  });

  it("a delete through either version removes the event from both, and the other version's watch sees it go", async () => {
    const start = (await api.admin.get(core)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const coreWatch = api.admin.watch(`${core}?watch=1&resourceVersion=${start}&fieldSelector=metadata.name%3Dseq-1`);
    try {
      expect((await api.admin.delete(`${events}/seq-1`)).status).toBe(200);
      expect((await api.admin.get(`${core}/seq-1`)).status).toBe(404);
      expect((await api.admin.get(`${events}/seq-1`)).status).toBe(404);
      const [deleted] = await coreWatch.waitFor(1);
      expect(deleted).toMatchObject({ type: "DELETED", object: { apiVersion: "v1", metadata: { name: "seq-1" }, message: "image pulled" } });
    } finally {
      coreWatch.stop();
    }
    expect((await api.admin.delete(`${core}/seq-3`)).status).toBe(200);
    expect((await api.admin.get(`${events}/seq-3`)).status).toBe(404);
  });

  it.each<[string, "core" | "events", string, string[]]>([
    ["core involvedObject.name", "core", "involvedObject.name=web-1", ["from-new", "seq-2"]],
    ["core reportingComponent", "core", "reportingComponent=example.com/scheduler", ["from-new", "seq-2"]],
    ["core source (the reporting controller when there is no source)", "core", "source=example.com/scheduler", ["from-new", "seq-2"]],
    ["core source component", "core", "source=node-agent", ["from-old"]],
    ["events/v1 regarding.name", "events", "regarding.name=db-1", ["from-old"]],
    ["events/v1 regarding.fieldPath", "events", "regarding.fieldPath=spec.containers{web}", ["from-new", "seq-2"]],
    ["events/v1 reportingController", "events", "reportingController=example.com/scheduler", ["from-new", "seq-2"]],
    ["events/v1 source", "events", "source=node-agent", ["from-old"]],
    ["events/v1 reason and type", "events", "reason=Pulled,type=Normal", ["from-old"]],
  ])("field selector %s", async (_name, version, selector, want) => {
    const res = await api.admin.get(`${version === "core" ? core : events}?fieldSelector=${encodeURIComponent(selector)}`);
    expect(res.status, res.text).toBe(200);
    expect(names(res.json())).toEqual(want);
  });

  it("each version refuses the other's field labels with 400", async () => {
    const a = await api.admin.get(`${events}?fieldSelector=${encodeURIComponent("involvedObject.name=web-1")}`);
    expect(a.status).toBe(400);
    expect(a.json<StatusBody>().message).toBe("field label not supported: involvedObject.name");
    const b = await api.admin.get(`${core}?fieldSelector=${encodeURIComponent("regarding.name=web-1")}`);
    expect(b.status).toBe(400);
    expect(b.json<StatusBody>().message).toBe("field label not supported: regarding.name");
  });

  it("kubectl 1.34: get events and kubectl events show an event written through events/v1, get events.v1.<events group> one written through core/v1", async () => {
    const home = await mkdtemp(join(tmpdir(), "events-kubectl-"));
    try {
      const pki = await ensurePki(api.dir, { profile: api.profile });
      await writeAdminKubeconfig(join(home, "config"), { server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
      const env = { HOME: home, KUBECONFIG: join(home, "config") };
      const kubectl = layerClients().kubectl;
      const [json, newer, table, listed] = await Promise.all([
        runClient(kubectl, ["get", "events", "-n", NS, "--field-selector", "involvedObject.name=web-1", "-o", "json"], { env }),
        runClient(kubectl, ["get", `events.v1.${api.profile.group("events")}`, "-n", NS, "--field-selector", "regarding.name=db-1", "-o", "json"], { env }),
        runClient(kubectl, ["get", "events", "-n", NS], { env }),
        runClient(kubectl, ["events", "-n", NS, "--for", "pod/web-1"], { env }),
      ]);
      expect(json.code, json.stderr).toBe(0);
      const items = (JSON.parse(json.stdout) as { items: Array<Record<string, unknown>> }).items;
      expect(items.map((i) => (i.metadata as { name: string }).name).sort()).toEqual(["from-new", "seq-2"]);
      expect(items.find((i) => (i.metadata as { name: string }).name === "from-new")).toMatchObject({ apiVersion: "v1", kind: "Event", message: "assigned", reportingComponent: "example.com/scheduler" });
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/Normal\s+Scheduled\s+pod\/web-1\s+assigned/);
      expect(table.stdout).toMatch(/Normal\s+Pulled\s+pod\/db-1\s+image pulled/);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/Normal\s+Scheduled\s+Pod\/web-1\s+assigned/);
      expect(listed.stdout).not.toContain("db-1");
      expect(newer.code, newer.stderr).toBe(0);
      expect(JSON.parse(newer.stdout)).toMatchObject({ items: [{ apiVersion: `${api.profile.group("events")}/v1`, metadata: { name: "from-old" }, note: "image pulled", deprecatedCount: 4 }] });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
