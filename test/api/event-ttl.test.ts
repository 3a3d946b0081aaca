/**
 * `--event-ttl` over HTTPS: one replica started from the parsed command line
 * `--event-ttl=2s` (the store's shortest lease). An Event written through either API
 * version is deleted by the store about 2 s after its last write, seen as gone by GET,
 * LIST and a watch (DELETED); an update renews its time; a ConfigMap written alongside
 * stays. The default is the platform's hour.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseApiserverCommandLine } from "../../services/apiserver/server/options.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let coreEvents = "";
let v1Events = "";
const configMaps = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  const { flags } = parseApiserverCommandLine(["--event-ttl=2s"]);
  api = await startTestApiserver({ eventTtlMs: Number(flags["event-ttl"]) });
  coreEvents = "/api/v1/namespaces/default/events";
  v1Events = `/apis/${api.profile.group("events")}/v1/namespaces/default/events`;
}, 30_000);
afterAll(async () => {
  await api?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const coreEvent = (name: string) => ({ apiVersion: "v1", kind: "Event", metadata: { name }, involvedObject: { kind: "Pod", namespace: "default", name: "p" }, reason: "Started", message: "m", type: "Normal" });
const v1Event = (name: string) => ({
  apiVersion: api.profile.apiVersion("events", "v1"),
  kind: "Event",
  metadata: { name },
  eventTime: new Date().toISOString().replace("Z", "000Z"),
  regarding: { kind: "Pod", namespace: "default", name: "p" },
  reportingController: "example.com/c",
  reportingInstance: "c-1",
  action: "Run",
  reason: "Started",
  type: "Normal",
  note: "n",
});

/** Polls until GET answers 404 (true) or `ms` pass (false). */
async function goneWithin(path: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((await api.admin.get(path)).status === 404) return true;
    await sleep(100);
  }
  return (await api.admin.get(path)).status === 404;
}

describe("--event-ttl", () => {
  it("defaults to the platform's hour", () => {
    expect(parseApiserverCommandLine([]).flags["event-ttl"]).toBe(60 * 60 * 1000);
  });

  it("an Event (either version) is gone about 2 s after its last write; an update renews it; a ConfigMap stays", async () => {
    const start = Date.now();
    for (const [path, body] of [
      [coreEvents, coreEvent("short-core")],
      [v1Events, v1Event("short-v1")],
      [coreEvents, coreEvent("renewed")],
      [configMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept" }, data: { a: "1" } }],
    ] as const) {
      const res = await api.admin.post(path, body);
      expect(res.status, res.text).toBe(201);
    }
    const list = await api.admin.get(coreEvents);
    const rv = list.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watch = api.admin.watch(`${coreEvents}?watch=1&resourceVersion=${rv}`);

    // Renew one event a second in: it must outlive the others by about that second.
    await sleep(1000);
    const current = (await api.admin.get(`${coreEvents}/renewed`)).json<Record<string, unknown>>();
    expect((await api.admin.put(`${coreEvents}/renewed`, { ...current, message: "again" })).status).toBe(200);
    const renewedAt = Date.now();

    expect(await goneWithin(`${coreEvents}/short-core`, 8000)).toBe(true);
    expect(await goneWithin(`${v1Events}/short-v1`, 2000)).toBe(true);
    // Not before its time: the store keeps it for the whole TTL.
    expect(Date.now() - start).toBeGreaterThanOrEqual(2000);
    const renewed = await api.admin.get(`${coreEvents}/renewed`);
    if (Date.now() - renewedAt < 1800) expect(renewed.status).toBe(200);
    expect(await goneWithin(`${coreEvents}/renewed`, 8000)).toBe(true);
    expect(Date.now() - renewedAt).toBeGreaterThanOrEqual(2000);

    const names = (await api.admin.get(coreEvents)).json<{ items: Array<{ metadata: { name: string } }> }>().items.map((e) => e.metadata.name);
    expect(names).not.toContain("short-core");
    expect(names).not.toContain("renewed");
    // The watch saw the renewal, then the three expiries as DELETED.
    const seen = await watch.waitFor(4);
    watch.stop();
    const nameOf = (o: Record<string, unknown>) => (o.metadata as { name: string }).name;
    expect(seen.filter((e) => e.type === "MODIFIED").map((e) => nameOf(e.object))).toEqual(["renewed"]);
    expect(seen.filter((e) => e.type === "DELETED").map((e) => nameOf(e.object)).sort()).toEqual(["renewed", "short-core", "short-v1"]);
    expect((await api.admin.get(`${configMaps}/kept`)).status).toBe(200);
  }, 30_000);
});
