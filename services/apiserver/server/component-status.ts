/**
 * The control-plane health behind `componentstatuses` (deprecated core/v1 ComponentStatus):
 * on each request the replica probes the scheduler's and the controller manager's
 * `/healthz` over HTTPS (certificates not verified, as the platform's probe does) and the
 * store with a quorum read, and reports one `Healthy` condition per component, in the
 * order scheduler, controller-manager, etcd-0. A probe that fails or answers other than
 * 200 is `status: "False"` with the error in Go's words where it can be.
 */
import { request as httpsRequest } from "node:https";
import type { JsonObject } from "../storage/object.ts";

/** Where each component's health endpoint is (the platform's fixed local ports by default). */
export const DEFAULT_COMPONENT_PROBES: Readonly<Record<string, string>> = {
  scheduler: "https://127.0.0.1:10259/healthz",
  "controller-manager": "https://127.0.0.1:10257/healthz",
};

const PROBE_TIMEOUT_MS = 2000;

interface ProbeResult {
  healthy: boolean;
  message?: string;
  error?: string;
}

function probeHealthz(url: string): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const req = httpsRequest(u, { method: "GET", rejectUnauthorized: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c.slice(0, 1024)));
      res.on("end", () => resolve(res.statusCode === 200 ? { healthy: true, message: body } : { healthy: false, message: body, error: `Unhealthy: ${res.statusCode ?? 0}` }));
      res.on("error", (err) => resolve({ healthy: false, error: `Get ${JSON.stringify(url)}: ${err.message}` }));
    });
    req.on("timeout", () => req.destroy(new Error("context deadline exceeded (Client.Timeout exceeded while awaiting headers)")));
    req.on("error", (err: NodeJS.ErrnoException) => {
      const text = err.code === "ECONNREFUSED" ? `dial tcp ${u.host}: connect: connection refused` : err.message;
      resolve({ healthy: false, error: `Get ${JSON.stringify(url)}: ${text}` });
    });
    req.end();
  });
}

function componentStatus(name: string, r: ProbeResult): JsonObject {
  const condition: JsonObject = { type: "Healthy", status: r.healthy ? "True" : "False" };
  if (r.message) condition.message = r.message;
  if (r.error) condition.error = r.error;
  return { metadata: { name }, conditions: [condition] };
}

/** Probes every component now; `store` answers a quorum read when the store is healthy. */
export function componentStatusProvider(store: { currentRevision(): Promise<number> }, probes: Readonly<Record<string, string>> = DEFAULT_COMPONENT_PROBES): () => Promise<JsonObject[]> {
  return async () => {
    const components = Object.entries(probes).map(async ([name, url]) => componentStatus(name, await probeHealthz(url)));
    const etcd = store.currentRevision().then(
      (): ProbeResult => ({ healthy: true, message: '{"health":"true","reason":""}' }),
      (err: unknown): ProbeResult => ({ healthy: false, error: err instanceof Error ? err.message : String(err) }),
    );
    return [...(await Promise.all(components)), componentStatus("etcd-0", await etcd)];
  };
}
