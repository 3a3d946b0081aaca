/**
 * The release this server reports (issue 24): `/version` is release 1.35 (gitVersion
 * v1.35.x, major "1", minor "35", emulating 1.35, compatible with 1.34), and kubectl 1.34
 * reads it without a version-skew warning.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki, writeAdminKubeconfig } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient } from "../support/clients.ts";

let api: TestApiserver;

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
}, 30_000);
afterAll(async () => {
  await api?.close();
});

describe("release 1.35", () => {
  it("/version reports 1.35", async () => {
    const res = await api.admin.get("/version");
    expect(res.status).toBe(200);
    const v = res.json<Record<string, string>>();
    expect(v.gitVersion).toMatch(/^v1\.35\.\d+$/);
    expect(v).toMatchObject({ major: "1", minor: "35", emulationMajor: "1", emulationMinor: "35", minCompatibilityMajor: "1", minCompatibilityMinor: "34" });
  });

  it("kubectl 1.34 sees server version v1.35 and no skew warning", async () => {
    const home = await mkdtemp(join(tmpdir(), "versioning-release-"));
    try {
      const pki = await ensurePki(api.dir, { profile: api.profile });
      await writeAdminKubeconfig(join(home, "config"), { server: api.replica.url, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "t", contextName: "t" });
      const out = await runClient(layerClients().kubectl, ["version", "-o", "json"], { env: { HOME: home, KUBECONFIG: join(home, "config") } });
      expect(out.code, out.stderr).toBe(0);
      const doc = JSON.parse(out.stdout) as { clientVersion: { minor: string }; serverVersion: { gitVersion: string; minor: string } };
      expect(doc.clientVersion.minor).toBe("34");
      expect(doc.serverVersion.minor).toBe("35");
      expect(doc.serverVersion.gitVersion).toBe("v1.35.0");
      expect(out.stderr).not.toContain("version difference");
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
