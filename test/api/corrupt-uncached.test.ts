/**
 * Corrupt objects on the reads the watch cache does not serve (issue 24): a LIST
 * continued past its first page or at an exact resourceVersion (read from the store's
 * history) answers the platform's corrupt-object Status (500 InternalError,
 * "StorageError: corrupt object" naming the key), not a bare decode failure; so do the
 * consistent GET and a DELETE with preconditions, whichever layer reads the key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";
const badKey = "/registry/core/configmaps/default/m-broken";

interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

const CORRUPT_MESSAGE = new RegExp(`^Internal error occurred: StorageError: corrupt object, Code: 7, Key: ${badKey}, ResourceVersion: 0, AdditionalErrorMsg: `);

function expectCorrupt(res: { status: number; text: string; json<T>(): T }, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBe(500);
  const status = res.json<StatusBody>();
  expect(status.kind).toBe("Status");
  expect(status.reason).toBe("InternalError");
  expect(status.message).toMatch(CORRUPT_MESSAGE);
}

let writtenAt = "";
beforeAll(async () => {
  api = await startTestApiserver();
  for (const name of ["a-good", "b-good", "z-good"]) {
    expect((await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name } })).status).toBe(201);
  }
  const res = await api.kv.txn([], [{ type: "put", key: badKey, value: new TextEncoder().encode("\u0000not json{") }], []);
  expect(res.succeeded).toBe(true);
  writtenAt = String(res.revision);
}, 30_000);
afterAll(async () => {
  await api?.close();
});

describe("corrupt objects on uncached reads", () => {
  it("a consistent GET is the corrupt-object Status", async () => {
    expectCorrupt(await api.admin.get(`${base}/m-broken`), "GET");
    expect((await api.admin.get(`${base}/a-good`)).status).toBe(200);
  });

  it("LIST continued past the first page and LIST at an exact resourceVersion are the corrupt-object Status", async () => {
    const first = await api.admin.get(`${base}?limit=2`);
    expect(first.status, first.text).toBe(200);
    const page = first.json<{ items: Array<{ metadata: { name: string } }>; metadata: { continue?: string } }>();
    expect(page.items.map((i) => i.metadata.name)).toEqual(["a-good", "b-good"]);
    expect(page.metadata.continue).toBeTruthy();
    expectCorrupt(await api.admin.get(`${base}?limit=2&continue=${encodeURIComponent(page.metadata.continue ?? "")}`), "LIST continue");
    expectCorrupt(await api.admin.get(`${base}?resourceVersionMatch=Exact&resourceVersion=${writtenAt}`), "LIST Exact");
  });

  it("DELETE with preconditions is the corrupt-object Status; the key stays", async () => {
    const raw = JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", preconditions: { resourceVersion: writtenAt } });
    const res = await api.admin.request("DELETE", `${base}/m-broken`, { raw, headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(raw)) } });
    expectCorrupt(res, "DELETE");
    expect((await api.kv.range(badKey, {})).kvs).toHaveLength(1);
  });
});
