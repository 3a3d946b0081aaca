/**
 * The machine's kubectl 1.32 (`/usr/bin/kubectl`, or the 1.32 release beside it when that
 * is a version dispatcher), unmodified, against the apiserver process:
 * the older client of the two tested releases, on the paths that differ most between
 * releases (discovery, tables, apply in both modes, diff, explain, watch, auth).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { spawnLines, systemKubectl } from "../support/clients.ts";
import { FIXTURES, headerOf, kubectlEnv, rowsOf, type KubectlEnv } from "./kubectl-env.ts";

const profile = getProfile("kubernetes");
const LAST_APPLIED = `kubectl.${profile.reservedDomains[0]}/last-applied-configuration`;
const NS = "e2e-old";
const system = systemKubectl();
const kubectl = system?.path;
if (!kubectl) throw new Error("kubectl 1.32 is required at /usr/bin/kubectl");

describe("kubectl 1.32 (Debian)", () => {
  let k: KubectlEnv;

  beforeAll(async () => {
    k = await kubectlEnv(kubectl as string);
    await k.ok(["create", "namespace", NS]);
  });

  afterAll(async () => {
    await k?.close();
  });

  it("version: client 1.32 against the 1.35 server, with kubectl's skew warning", async () => {
    const r = await k.run(["version", "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout) as { clientVersion: { minor: string }; serverVersion: { minor: string } };
    expect(v.serverVersion.minor).toBe("35");
    // A version dispatcher at /usr/bin/kubectl runs the server's release; the pinned binary is 1.32.
    if (system?.pinned) expect(v.clientVersion.minor).toBe("32");
    const skew = Math.abs(Number(v.serverVersion.minor) - Number(v.clientVersion.minor));
    if (skew > 1) {
      expect(r.stderr).toContain(`version difference between client (1.${v.clientVersion.minor}) and server (1.35) exceeds the supported minor version skew of +/-1`);
    } else {
      expect(r.stderr).not.toMatch(/version difference/i);
    }
  });

  it("api-resources and api-versions", async () => {
    expect(rowsOf(await k.ok(["api-resources"]))).toContainEqual(["deployments", "deploy", "apps/v1", "true", "Deployment"]);
    expect((await k.ok(["api-versions"])).trim().split("\n")).toEqual(expect.arrayContaining(["v1", "apps/v1"]));
  });

  it("create -f, tables and -o wide", async () => {
    await k.ok(["-n", NS, "create", "-f", join(FIXTURES, "web.yaml")]);
    const out = await k.ok(["-n", NS, "get", "deploy", "-o", "wide"]);
    expect(headerOf(out)).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"]);
    expect(rowsOf(out)[0][0]).toBe("web");
    expect(headerOf(await k.ok(["-n", NS, "get", "svc"]))).toEqual(["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"]);
  });

  it("client-side apply with last-applied and a strategic merge that drops a container", async () => {
    await k.ok(["-n", NS, "apply", "-f", join(FIXTURES, "web.yaml")]);
    await k.ok(["-n", NS, "apply", "-f", join(FIXTURES, "web-v2.yaml")]);
    const d = JSON.parse(await k.ok(["-n", NS, "get", "deploy", "web", "-o", "json"])) as { metadata: { annotations: Record<string, string> }; spec: { replicas: number; template: { spec: { containers: Array<{ name: string }> } } } };
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.template.spec.containers.map((c) => c.name)).toEqual(["nginx"]);
    expect(JSON.parse(d.metadata.annotations[LAST_APPLIED]) as unknown).toMatchObject({ spec: { replicas: 3 } });
    const diff = await k.run(["-n", NS, "diff", "-f", join(FIXTURES, "web-v2.yaml")]);
    expect(diff.code, diff.stderr).toBe(0);
  });

  it("apply --server-side with a conflict and --force-conflicts", async () => {
    const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  k: "${v}"\n`;
    await k.ok(["-n", NS, "apply", "--server-side", "-f", "-"], { input: cm("1") });
    const conflict = await k.run(["-n", NS, "apply", "--server-side", "--field-manager=second", "-f", "-"], { input: cm("2") });
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('conflict with "kubectl": .data.k');
    await k.ok(["-n", NS, "apply", "--server-side", "--field-manager=second", "--force-conflicts", "-f", "-"], { input: cm("2") });
    expect(await k.ok(["-n", NS, "get", "cm", "ssa", "-o", "jsonpath={.data.k}"])).toBe("2");
  });

  it("explain and auth whoami", async () => {
    expect(await k.ok(["explain", "deployment.spec.replicas"])).toMatch(/^FIELD: replicas <integer>$/m);
    expect(await k.ok(["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"])).toBe("admin");
  });

  it("get -w follows changes", async () => {
    const result = await spawnLines(kubectl as string, ["-n", NS, "get", "configmap", "web-config", "-w", "-o", "name"], {
      env: k.env,
      count: 2,
      onFirstLine: () => k.ok(["-n", NS, "label", "configmap", "web-config", "seen=yes"]).then(() => {}),
    });
    expect(result.lines).toEqual(["configmap/web-config", "configmap/web-config"]);
  }, 30_000);
});
