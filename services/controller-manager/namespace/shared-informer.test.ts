/**
 * The namespace controller reads namespaces from the shared informer: started with the
 * service account and root CA publisher controllers (which watch namespaces too)
 * against a real test apiserver over HTTPS, the controllers list namespaces once in
 * all (the apiserver's `apiserver_request_total` for LIST namespaces grows by 1, not
 * by one per controller), and a deleted namespace is still emptied and removed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../../../test/support/apiserver.ts";
import { startTestControllers, type TestControllers } from "../../../test/support/controllers.ts";

let api: TestApiserver;
let controllers: TestControllers | undefined;

beforeAll(async () => {
  api = await startTestApiserver();
});
afterAll(async () => {
  controllers?.stop();
  await api?.close();
});

/** Successful LISTs of namespaces the apiserver counted so far. */
async function namespaceLists(): Promise<number> {
  const text = (await api.admin.get("/metrics")).text;
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("apiserver_request_total{") && line.includes('verb="LIST"') && line.includes('resource="namespaces"') && line.includes('subresource=""')) {
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return total;
}

describe("namespace controller on the shared informer", () => {
  it("shares one namespaces list with the other controllers and still deletes a namespace's content", async () => {
    const before = await namespaceLists();
    controllers = await startTestControllers(api, ["namespace", "serviceaccount", "root-ca-cert-publisher"]);
    expect((await namespaceLists()) - before).toBe(1);

    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "shared-informer-ns" } })).status).toBe(201);
    const cm = await api.admin.post("/api/v1/namespaces/shared-informer-ns/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } });
    expect(cm.status, cm.text).toBe(201);
    expect((await api.admin.request("DELETE", "/api/v1/namespaces/shared-informer-ns")).status).toBe(200);
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await api.admin.get("/api/v1/namespaces/shared-informer-ns")).status;
      if (status === 404) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(404);
  }, 30_000);
});
