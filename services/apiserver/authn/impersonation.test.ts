import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientCert, type KeyPairPem } from "../server/certs.ts";
import { RequestHeaders } from "./headers.ts";
import { impersonate, type ImpersonationAttributes } from "./impersonation.ts";
import { defaultAuthenticationOptions } from "./options.ts";
import { clusterPki, profile, startAuthServer, TempDir, type TestServer } from "./testing/harness.ts";

const admin = { username: "admin", groups: ["system:masters", "system:authenticated"] };
const authGroup = profile.group("authentication");

describe("impersonate (pure)", () => {
  it("returns the caller unchanged without impersonation headers", async () => {
    expect(await impersonate(admin, RequestHeaders.of({ accept: "x" }), async () => false)).toBe(admin);
  });

  it("asks for every value and builds the new identity", async () => {
    const asked: ImpersonationAttributes[] = [];
    const u = await impersonate(
      admin,
      RequestHeaders.of({ "Impersonate-User": "jane", "Impersonate-Group": ["dev", "ops"], "Impersonate-Extra-Scopes": ["view", "edit"], "Impersonate-Extra-acme.com%2fteam": "red", "Impersonate-Uid": "u-1" }),
      async (_u, a) => {
        asked.push(a);
        return true;
      },
    );
    expect(u).toEqual({ username: "jane", uid: "u-1", groups: ["dev", "ops", "system:authenticated"], extra: { scopes: ["view", "edit"], "acme.com/team": ["red"] } });
    expect(asked).toEqual([
      { verb: "impersonate", group: "", resource: "users", name: "jane" },
      { verb: "impersonate", group: "", resource: "groups", name: "dev" },
      { verb: "impersonate", group: "", resource: "groups", name: "ops" },
      { verb: "impersonate", group: authGroup, resource: "userextras", subresource: "scopes", name: "view" },
      { verb: "impersonate", group: authGroup, resource: "userextras", subresource: "scopes", name: "edit" },
      { verb: "impersonate", group: authGroup, resource: "userextras", subresource: "acme.com/team", name: "red" },
      { verb: "impersonate", group: authGroup, resource: "uids", name: "u-1" },
    ]);
  });

  it("checks service accounts in their namespace and adds their groups", async () => {
    const asked: ImpersonationAttributes[] = [];
    const u = await impersonate(admin, RequestHeaders.of({ "Impersonate-User": "system:serviceaccount:ci:builder" }), async (_u, a) => (asked.push(a), true));
    expect(asked).toEqual([{ verb: "impersonate", group: "", resource: "serviceaccounts", namespace: "ci", name: "builder" }]);
    expect(u.groups).toEqual(["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"]);
  });

  it("gives system:anonymous the unauthenticated group", async () => {
    const u = await impersonate(admin, RequestHeaders.of({ "Impersonate-User": "system:anonymous" }), async () => true);
    expect(u).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
  });

  it("is a bad request to impersonate a group, extra or uid without a user", async () => {
    const cases: Array<Record<string, string>> = [{ "Impersonate-Group": "g" }, { "Impersonate-Extra-x": "v" }, { "Impersonate-Uid": "1" }];
    for (const h of cases) {
      await expect(impersonate(admin, RequestHeaders.of(h), async () => true)).rejects.toMatchObject({ status: { code: 400, reason: "BadRequest" } });
    }
  });

  it("is forbidden when one value is not allowed", async () => {
    const err = await impersonate(admin, RequestHeaders.of({ "Impersonate-User": "jane", "Impersonate-Group": "system:masters" }), async (_u, a) => a.resource !== "groups").catch((e: unknown) => e);
    expect(err).toMatchObject({ status: { code: 403, reason: "Forbidden" } });
    expect((err as Error).message).toBe('groups "system:masters" is forbidden: User "admin" cannot impersonate resource "groups" in API group "" at the cluster scope');
  });
});

describe("impersonation over HTTPS", () => {
  const dir = new TempDir();
  let srv: TestServer;
  let boss: KeyPairPem;
  let intern: KeyPairPem;

  beforeAll(async () => {
    const { ca } = await clusterPki();
    boss = await createClientCert(ca, { user: "boss" });
    intern = await createClientCert(ca, { user: "intern" });
    const o = defaultAuthenticationOptions();
    o.clientCaFile = dir.write("ca.crt", ca.certPem);
    // boss may impersonate users, the group "dev" and uids; intern may do nothing
    srv = await startAuthServer(o, {
      authorizeImpersonation: async (user, a) => user.username === "boss" && (a.resource === "users" || a.resource === "uids" || (a.resource === "groups" && a.name === "dev")),
    });
  });
  afterAll(async () => {
    await srv.close();
    dir.remove();
  });

  it("acts as the impersonated user when allowed", async () => {
    const r = await srv.call({ client: boss, headers: { "Impersonate-User": "jane", "Impersonate-Group": "dev", "Impersonate-Uid": "42" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: "jane", uid: "42", groups: ["dev", "system:authenticated"] });
  });

  it.each([
    ["a user, for a caller without the right", "intern", { "Impersonate-User": "jane" }],
    ["a group that is not allowed", "boss", { "Impersonate-User": "jane", "Impersonate-Group": "system:masters" }],
    ["an extra that is not allowed", "boss", { "Impersonate-User": "jane", "Impersonate-Extra-Scopes": "admin" }],
    ["a service account that is not allowed", "boss", { "Impersonate-User": "system:serviceaccount:kube:root" }],
  ])("answers 403 to %s", async (_w, who, headers) => {
    const r = await srv.call({ client: who === "boss" ? boss : intern, headers });
    expect(r.status).toBe(403);
    expect(r.body.reason).toBe("Forbidden");
  });

  it("answers 400 to a group without a user", async () => {
    expect((await srv.call({ client: boss, headers: { "Impersonate-Group": "dev" } })).status).toBe(400);
  });
});
