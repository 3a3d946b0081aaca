/**
 * The legacy token tracking ConfigMap is kept by the replicas' tracking controller,
 * over HTTPS against two replicas of one store:
 *
 * - deleted while the replicas run, it comes back within seconds with today's date
 *   (as the platform's controller, the old date is not brought back): the second
 *   replica found it at start-up, so its creation rate limit (one per 30 minutes,
 *   burst one) still allows a creation; the first one created it at start-up;
 * - deleted again at once, it stays away: both replicas have used their creation;
 * - a `since` that is not a date is rewritten with today's (no rate limit applies).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, utcDate } from "../../shared/api/calendar-date.ts";
import type { Replica } from "../../services/apiserver/server/replica.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { HttpsClient } from "../support/https-client.ts";

let api: TestApiserver;
let second: { replica: Replica; admin: HttpsClient } | undefined;
let path: string;

beforeAll(async () => {
  api = await startTestApiserver();
  second = await startSecondReplica(api);
  path = `/api/v1/namespaces/${api.profile.systemNamespace}/configmaps/${api.profile.serviceAccount.legacyTokenTrackingConfigMap}`;
});
afterAll(async () => {
  second?.admin.close();
  await second?.replica.close();
  await api?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ConfigMap's `since`, or undefined while there is none. */
async function since(): Promise<string | undefined> {
  const r = await api.admin.get(path);
  return r.status === 200 ? r.json<{ data?: Record<string, string> }>().data?.since : undefined;
}

async function until(fn: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fn()) return true;
    await sleep(50);
  }
  return false;
}

const today = () => [utcDate(Date.now()), utcDate(Date.now() - DAY_MS)];

describe("legacy token tracking ConfigMap", () => {
  it("comes back with today's date within seconds of being deleted, once per creation interval of each replica", async () => {
    expect(today()).toContain(await since());
    // An old date: a re-created ConfigMap does not bring it back.
    expect((await api.admin.patch(path, { data: { since: "2020-01-01" } }, "application/merge-patch+json")).status).toBe(200);
    expect((await api.admin.delete(path)).status).toBe(200);
    expect(await until(async () => (await since()) !== undefined, 5000)).toBe(true);
    expect(today()).toContain(await since());

    // Both replicas have now created it within the interval: a second deletion is not undone at once.
    expect((await api.admin.delete(path)).status).toBe(200);
    await sleep(1500);
    expect(await since()).toBeUndefined();
  });

  it("rewrites a since that is not a date with today's", async () => {
    const created = await api.admin.post(`/api/v1/namespaces/${api.profile.systemNamespace}/configmaps`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: api.profile.serviceAccount.legacyTokenTrackingConfigMap },
      data: { since: "not a date" },
    });
    expect(created.status, created.text).toBe(201);
    expect(await until(async () => today().includes((await since()) ?? ""), 5000)).toBe(true);
  });
});
