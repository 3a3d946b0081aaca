/**
 * A list at a resourceVersion the store has not reached, through HTTPS against a
 * real replica: 504 Timeout "Too large resource version" with the
 * ResourceVersionTooLarge cause and Retry-After, never a 500, for Exact lists and
 * paged lists (which read the store at that revision).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../../../test/support/apiserver.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
});
afterAll(async () => {
  await api?.close();
});

const cms = "/api/v1/namespaces/default/configmaps";

describe("list at a future resourceVersion", () => {
  it.each([
    ["resourceVersionMatch=Exact", "&resourceVersionMatch=Exact"],
    ["a paged list (limit, no match)", "&limit=2"],
    ["a paged Exact list", "&resourceVersionMatch=Exact&limit=2"],
  ])("answers %s with 504 Too large resource version", async (_name, extra) => {
    const created = await api.admin.post(cms, { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "future-" } });
    expect(created.status, created.text).toBe(201);
    const current = Number(created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
    const future = current + 1000;
    const res = await api.admin.get(`${cms}?resourceVersion=${future}${extra}`);
    expect(res.status, res.text).toBe(504);
    expect(res.headers["retry-after"]).toBe("1");
    const body = res.json<{ message: string }>();
    expect(body).toMatchObject({
      kind: "Status",
      status: "Failure",
      code: 504,
      reason: "Timeout",
      details: { retryAfterSeconds: 1, causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] },
    });
    expect(body.message).toMatch(new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
  });

  it("still answers an Exact list at a reached revision", async () => {
    const created = await api.admin.post(cms, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "exact-now" } });
    const rv = created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const res = await api.admin.get(`${cms}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(res.status, res.text).toBe(200);
    expect(res.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion).toBe(rv);
  });
});
