/**
 * Answer headers over HTTPS: a GET (headers on the node response before its head) and a
 * watch (a body written directly, its head written in one piece) both carry the request's
 * Audit-ID and the priority-and-fairness classification headers of the same FlowSchema
 * and priority level.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flowControlHeaders } from "../../services/apiserver/server/filters/with-priority-and-fairness.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  api = await startTestApiserver();
  const created = await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "answer" } });
  if (created.status !== 201) throw new Error(`${created.status}: ${created.text}`);
});
afterAll(async () => {
  await api?.close();
});

describe("answer headers", () => {
  it("a GET and a watch (direct body) both carry Audit-ID and the APF classification headers", async () => {
    const names = flowControlHeaders(api.profile);
    const get = await api.admin.get(`${base}/answer`, { "audit-id": "answer-get" });
    const watch = await api.admin.get(`${base}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Danswer`, { "audit-id": "answer-watch" });
    expect([get.status, watch.status]).toEqual([200, 200]);
    expect(watch.text).toContain('"type":"ADDED"');
    expect([get.headers["audit-id"], watch.headers["audit-id"]]).toEqual(["answer-get", "answer-watch"]);
    const uid = /^[0-9a-f-]{36}$/;
    for (const name of [names.flowSchemaUid, names.priorityLevelUid].map((n) => n.toLowerCase())) {
      expect(get.headers[name]).toMatch(uid);
      expect(watch.headers[name]).toBe(get.headers[name]);
    }
  });
});
