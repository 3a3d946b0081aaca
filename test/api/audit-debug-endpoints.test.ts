/**
 * The operator endpoints of a replica over HTTPS: `/logs/` lists and serves the log
 * directory and nothing outside it; `/debug/pprof/profile` returns a CPU profile when
 * profiling is on; both are 404 Statuses naming their flag when off; both are
 * authorized like any non-resource path (a user without rights gets 403).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";
import type { Replica } from "../../services/apiserver/server/replica.ts";

const ADMIN = "debug-admin-token-1a2b3c4d5e6f";
const NOBODY = "debug-nobody-token-6f5e4d3c2b1a";
let dir: string;
let api: TestApiserver;
let off: { replica: Replica; admin: HttpsClient } | undefined;
let admin: HttpsClient;
let nobody: HttpsClient;
let offAdmin: HttpsClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "debug-endpoints-"));
  const logs = join(dir, "logs");
  await mkdir(join(logs, "sub"), { recursive: true });
  await writeFile(join(logs, "apiserver.log"), "line one\nline two\n");
  await writeFile(join(dir, "outside.txt"), "not for you");
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  await writeFile(authentication.tokenAuthFile, `${ADMIN},admin,1,system:masters\n${NOBODY},nobody,2\n`);
  const security = { authentication, authorization: { modes: ["RBAC" as const] } };
  api = await startTestApiserver({ security, debug: { logsHandler: true, logsDir: logs, profiling: true } });
  admin = new HttpsClient(api.replica.url, { ca: api.ca, token: ADMIN });
  nobody = new HttpsClient(api.replica.url, { ca: api.ca, token: NOBODY });
  off = await startSecondReplica(api, { security, debug: { logsHandler: false, logsDir: logs, profiling: false } });
  offAdmin = new HttpsClient(off.replica.url, { ca: api.ca, token: ADMIN });
});

afterAll(async () => {
  for (const c of [admin, nobody, offAdmin]) c?.close();
  off?.admin.close();
  await off?.replica.close();
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("/logs", () => {
  it("lists the log directory and serves its files", async () => {
    const list = await admin.get("/logs/");
    expect(list.status).toBe(200);
    expect(list.text).toBe('<pre>\n<a href="apiserver.log">apiserver.log</a>\n<a href="sub/">sub/</a>\n</pre>\n');
    const file = await admin.get("/logs/apiserver.log");
    expect(file.status).toBe(200);
    expect(file.text).toBe("line one\nline two\n");
  });

  it("serves nothing outside the log directory", async () => {
    for (const path of ["/logs/../outside.txt", "/logs/%2e%2e/outside.txt", "/logs/missing.log"]) {
      const r = await admin.get(path);
      expect(r.status, path).toBe(404);
      expect(r.text).not.toContain("not for you");
    }
  });

  it("is authorized: a user without rights is refused", async () => {
    expect((await nobody.get("/logs/")).status).toBe(403);
  });

  it("is a 404 naming the flag when turned off", async () => {
    const r = await offAdmin.get("/logs/");
    expect(r.status).toBe(404);
    expect(r.json<{ reason: string; message: string }>()).toMatchObject({ reason: "NotFound", message: "/logs is disabled on this server (--enable-logs-handler=false)" });
  });
});

describe("/debug/pprof/profile", () => {
  it("returns a CPU profile of the replica", async () => {
    const r = await admin.get("/debug/pprof/profile?seconds=1");
    expect(r.status).toBe(200);
    const profile = r.json<{ nodes: Array<{ callFrame: { functionName: string } }>; startTime: number; endTime: number }>();
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(profile.endTime - profile.startTime).toBeGreaterThanOrEqual(900_000);
    expect((await admin.get("/debug/pprof/profile?seconds=zero")).status).toBe(400);
    expect((await nobody.get("/debug/pprof/profile?seconds=1")).status).toBe(403);
  });

  it("is a 404 naming the flag when profiling is off", async () => {
    const r = await offAdmin.get("/debug/pprof/profile?seconds=1");
    expect(r.status).toBe(404);
    expect(r.json<{ message: string }>().message).toBe("/debug/pprof is disabled on this server (--profiling is off)");
  });
});
