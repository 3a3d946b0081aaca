/**
 * Error Statuses follow the request's `Accept` as the platform's error negotiation
 * does: a client preferring the profile's protobuf type gets the Status in the
 * envelope (kind Status, `v1`), which the client library decodes into its error;
 * plain JSON (and an `Accept` nothing matches) stays JSON. Both naming profiles.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatusError, type Status } from "../../shared/api/status.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { decodeStatus } from "../../shared/codec/protobuf/index.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

async function thrown(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error("the request succeeded");
}

describe.each(["plat", "kubernetes"] as const)("error Statuses in the negotiated encoding (%s profile)", (profileId) => {
  let api: TestApiserver;
  let client: HttpsObjectClient;
  const contentTypes: string[] = [];
  beforeAll(async () => {
    api = await startTestApiserver({ profileId });
    const pki = await ensurePki(api.dir, { profile: api.profile });
    client = new HttpsObjectClient(
      { server: api.replica.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, insecureSkipTlsVerify: false },
      { contentType: "protobuf", profile: api.profile, onResponse: (a) => contentTypes.push(a.contentType ?? "") },
    );
  });
  afterAll(async () => {
    await api?.close();
  });

  const pbAccept = () => `${api.profile.protobufMediaType}, application/json`;

  it("a 404 asked with protobuf first is a protobuf Status the client decodes", async () => {
    const res = await api.admin.get("/api/v1/namespaces/default/configmaps/missing", { accept: pbAccept() });
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toBe(api.profile.protobufMediaType);
    const status = decodeStatus(res.body) as unknown as Status;
    expect(status).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code: 404, reason: "NotFound", message: 'configmaps "missing" not found' });
    expect(status.details).toMatchObject({ name: "missing", kind: "configmaps" });

    contentTypes.length = 0;
    const err = await thrown(client.get(CONFIGMAPS, "missing", { namespace: "default" }));
    expect(contentTypes).toEqual([api.profile.protobufMediaType]);
    expect(err.status).toMatchObject({ code: 404, reason: "NotFound", message: 'configmaps "missing" not found' });
  });

  it("a 422 asked with protobuf first is a protobuf Status with its causes", async () => {
    contentTypes.length = 0;
    const err = await thrown(client.create(CONFIGMAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Bad_Name", namespace: "default" } }, { namespace: "default" }));
    expect(contentTypes).toEqual([api.profile.protobufMediaType]);
    expect(err.status).toMatchObject({ code: 422, reason: "Invalid", details: { name: "Bad_Name", kind: "ConfigMap" } });
    expect(err.status.message).toContain('ConfigMap "Bad_Name" is invalid');
    expect(err.status.details?.causes?.[0]).toMatchObject({ reason: "FieldValueInvalid", field: "metadata.name" });
  });

  it("plain JSON, or an Accept nothing matches, stays JSON", async () => {
    const json = await api.admin.get("/api/v1/namespaces/default/configmaps/missing", { accept: "application/json" });
    expect(json.status).toBe(404);
    expect(json.headers["content-type"]).toBe("application/json");
    expect(json.json<Status>()).toMatchObject({ kind: "Status", code: 404, reason: "NotFound" });

    const bad = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Bad_Name" } }, { accept: "application/json" });
    expect(bad.status).toBe(422);
    expect(bad.headers["content-type"]).toBe("application/json");
    expect(bad.json<Status>()).toMatchObject({ kind: "Status", code: 422, reason: "Invalid" });

    const refused = await api.admin.get("/api/v1/namespaces/default/configmaps/missing", { accept: "text/html" });
    expect(refused.status).toBe(406);
    expect(refused.headers["content-type"]).toBe("application/json");
    expect(refused.json<Status>()).toMatchObject({ kind: "Status", code: 406, reason: "NotAcceptable" });
  });
});
