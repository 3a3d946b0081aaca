/**
 * Watch `timeoutSeconds` through HTTPS against a real replica: a negative value ends
 * the watch at once (the platform arms its timer with it), a huge one does not
 * overflow the timer into an immediate end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../../../test/support/apiserver.ts";
import { watchTimeoutMs } from "./list-options.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
});
afterAll(async () => {
  await api?.close();
});

const cms = "/api/v1/namespaces/default/configmaps";

describe("watch timeoutSeconds", () => {
  it("maps the parameter to a timer delay", () => {
    expect(watchTimeoutMs(-5, 1800)).toBe(0);
    expect(watchTimeoutMs(7, 1800)).toBe(7000);
    expect(watchTimeoutMs(99999999999999, 1800)).toBe(2 ** 31 - 1);
    for (const unset of [undefined, 0]) {
      const d = watchTimeoutMs(unset, 1800);
      expect(d).toBeGreaterThanOrEqual(1_800_000);
      expect(d).toBeLessThanOrEqual(3_600_000);
    }
  });

  it("ends a watch with a negative timeoutSeconds at once, with 200 and no events", async () => {
    const w = api.admin.watch(`${cms}?watch=1&timeoutSeconds=-5`);
    await w.waitFor(1, 10_000);
    expect(w.status).toBe(200);
    expect(w.ended).toBe(true);
    expect(w.events).toEqual([]);
  });

  it("keeps a watch with a huge timeoutSeconds open and delivering", async () => {
    const w = api.admin.watch(`${cms}?watch=1&timeoutSeconds=99999999999999`);
    try {
      await new Promise((r) => setTimeout(r, 200));
      const created = await api.admin.post(cms, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "huge-timeout" } });
      expect(created.status, created.text).toBe(201);
      const events = await w.waitFor(1, 10_000);
      expect(w.status).toBe(200);
      expect(events.map((e) => [e.type, (e.object.metadata as { name: string }).name])).toEqual([["ADDED", "huge-timeout"]]);
    } finally {
      w.stop();
    }
  });
});
