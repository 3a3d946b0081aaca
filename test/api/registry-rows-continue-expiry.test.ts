/**
 * Continue tokens expire: a chunked list's token older than the validity window (the
 * platform's is 5 minutes; this replica is started with 1.5 s through the
 * `continueTokenValidityMs` option) is refused over HTTPS with 410 Expired and the
 * platform's message, while a fresh token continues the list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTINUE_EXPIRED_MESSAGE } from "../../shared/api/status.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";
const VALIDITY_MS = 1500;
type Page = { metadata: { continue?: string }; items: Array<{ metadata: { name: string } }> };

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes", continueTokenValidityMs: VALIDITY_MS });
  for (const name of ["c-1", "c-2", "c-3"]) {
    expect((await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name } })).status).toBe(201);
  }
});
afterAll(async () => {
  await api?.close();
});

describe("continue token validity", () => {
  it("continues with a fresh token and answers 410 Expired for one older than the window", async () => {
    const first = await api.admin.get(`${base}?limit=1`);
    expect(first.status).toBe(200);
    const token = first.json<Page>().metadata.continue;
    expect(token).toBeTruthy();

    const fresh = await api.admin.get(`${base}?limit=1&continue=${encodeURIComponent(token as string)}`);
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.json<Page>().items.map((i) => i.metadata.name)).toEqual(["c-2"]);

    await new Promise((r) => setTimeout(r, VALIDITY_MS + 300));
    const stale = await api.admin.get(`${base}?limit=1&continue=${encodeURIComponent(token as string)}`);
    expect(stale.status, stale.text).toBe(410);
    expect(stale.json()).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410, message: CONTINUE_EXPIRED_MESSAGE });

    // a new list hands out a new token that works again
    const again = await api.admin.get(`${base}?limit=2`);
    const next = await api.admin.get(`${base}?limit=2&continue=${encodeURIComponent(again.json<Page>().metadata.continue as string)}`);
    expect(next.status).toBe(200);
    expect(next.json<Page>().items.map((i) => i.metadata.name)).toEqual(["c-3"]);
  });
});
