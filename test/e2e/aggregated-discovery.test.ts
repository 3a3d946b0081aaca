/**
 * kubectl 1.34 against the apiserver process uses aggregated discovery: its
 * request log (-v=8) shows /api and /apis fetched with the aggregated Accept and
 * answered with APIGroupDiscoveryList, and no per-group-version document
 * fetched; a second run revalidates with the ETag and is answered 304.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { layerClients } from "../support/clients.ts";
import { headerOf, kubectlEnv, rowsOf, type KubectlEnv } from "./kubectl-env.ts";

const profile = getProfile("kubernetes");
const AGGREGATED = (version: string) => `application/json;g=${profile.group("apidiscovery")};v=${version};as=APIGroupDiscoveryList`;

interface LoggedExchange {
  url: URL;
  requestHeaders: Record<string, string>;
  status?: string;
  responseHeaders: Record<string, string>;
}

/** The requests and responses of kubectl's `-v=8` log (klog's `"Request"`/`"Response"` entries with their header blocks). */
function exchanges(log: string): LoggedExchange[] {
  const out: LoggedExchange[] = [];
  const lines = log.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const req = /"Request" verb="GET" url="([^"]+)" headers=</.exec(lines[i]);
    const res = /"Response" status="([^"]+)" headers=</.exec(lines[i]);
    if (!req && !res) continue;
    const headers: Record<string, string> = {};
    for (i++; i < lines.length && !lines[i].startsWith(" >"); i++) {
      const m = /^\s+([A-Za-z-]+): (.*)$/.exec(lines[i]);
      if (m) headers[m[1].toLowerCase()] = m[2];
    }
    if (req) out.push({ url: new URL(req[1]), requestHeaders: headers, responseHeaders: {} });
    else if (res && out.length > 0) Object.assign(out[out.length - 1], { status: res[1], responseHeaders: headers });
  }
  return out;
}

let k: KubectlEnv;

beforeAll(async () => {
  k = await kubectlEnv(layerClients().kubectl);
});

afterAll(async () => {
  await k?.close();
});

describe("kubectl 1.34: aggregated discovery", () => {
  it("api-resources fetches /api and /apis aggregated and no group version document", async () => {
    const r = await k.run(["api-resources", "-v=8"]);
    expect(r.code, r.stderr).toBe(0);
    const seen = exchanges(r.stderr);
    const paths = seen.map((e) => e.url.pathname);
    expect(paths).toEqual(["/api", "/apis"]);
    for (const e of seen) {
      expect(e.requestHeaders.accept, e.url.pathname).toBe(`${AGGREGATED("v2")},${AGGREGATED("v2beta1")},application/json`);
      expect(e.status, e.url.pathname).toBe("200 OK");
      expect(e.responseHeaders["content-type"], e.url.pathname).toBe(AGGREGATED("v2"));
      expect(e.responseHeaders.etag, e.url.pathname).toMatch(/^"[0-9A-F]+"$/);
      expect(e.responseHeaders.vary, e.url.pathname).toBe("Accept");
    }
    expect(paths.some((p) => p === "/api/v1" || /^\/apis\/[^/]+\/[^/]+$/.test(p))).toBe(false);

    expect(headerOf(r.stdout)).toEqual(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    const rows = rowsOf(r.stdout);
    expect(rows).toContainEqual(["pods", "po", "v1", "true", "Pod"]);
    expect(rows).toContainEqual(["namespaces", "ns", "v1", "false", "Namespace"]);
    expect(rows).toContainEqual(["deployments", "deploy", "apps/v1", "true", "Deployment"]);
    expect(rows).toContainEqual(["clusterroles", `${profile.group("rbac")}/v1`, "false", "ClusterRole"]);
    expect(rows).toContainEqual(["horizontalpodautoscalers", "hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler"]);
  });

  it("resolves short names and categories from the aggregated document", async () => {
    await k.ok(["create", "deployment", "agg-web", "--image=nginx:1.27"]);
    const out = await k.ok(["get", "deploy", "agg-web", "-o", "name"]);
    expect(out.trim()).toBe("deployment.apps/agg-web");
    const all = await k.ok(["get", "all", "-o", "name"]);
    expect(all).toContain("deployment.apps/agg-web");
    const cached = await k.run(["get", "deploy", "agg-web", "-v=8"]);
    expect(cached.code, cached.stderr).toBe(0);
    // The discovery cache from the first test answers: no per-group-version fetch either.
    expect(exchanges(cached.stderr).some((e) => /^\/apis\/[^/]+\/[^/]+$/.test(e.url.pathname) || e.url.pathname === "/api/v1")).toBe(false);
  });

  it("a second api-resources revalidates with the ETag and is answered 304", async () => {
    const before = await notModifiedCount();
    const r = await k.run(["api-resources"]);
    expect(r.code, r.stderr).toBe(0);
    expect(await notModifiedCount()).toBeGreaterThanOrEqual(before + 2);
  });
});

/** apiserver_request_total for GET answered 304 (only discovery answers 304 here). */
async function notModifiedCount(): Promise<number> {
  const metrics = await k.ok(["get", "--raw", "/metrics"]);
  let n = 0;
  for (const line of metrics.split("\n")) {
    const m = /^apiserver_request_total\{([^}]*)\} (\d+)/.exec(line);
    if (m && m[1].includes('code="304"') && m[1].includes('verb="GET"')) n += Number(m[2]);
  }
  return n;
}
