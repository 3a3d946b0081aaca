// Settings shared by the scenarios, read from the environment (k6 -e NAME=value):
//   BASE_URL      server URL (https://host:port), required
//   TOKEN         bearer token (e.g. the chart's admin-token)
//   CLIENT_CERT / CLIENT_KEY   PEM files of a client certificate, instead of a token
//   INSECURE=1    skip verification of the serving certificate (k6 trusts only the system CAs)
//   NAMESPACE     namespace of the objects (default loadtest; created in setup)
//   STAGES        ramp as "duration:vus,..." (default "30s:10,1m:10,30s:0")
import http from "k6/http";

/** @typedef {{ runId: string }} RunData what setup() hands to every iteration */
/** @typedef {import("k6/http").Params & { headers: Record<string, string> }} RequestParams */

export const BASE_URL = (__ENV.BASE_URL || "").replace(/\/$/, "");
export const NAMESPACE = __ENV.NAMESPACE || "loadtest";
export const RUN_LABEL = "loadtest-run";

const clientCert = __ENV.CLIENT_CERT ? open(__ENV.CLIENT_CERT) : undefined;
const clientKey = __ENV.CLIENT_KEY ? open(__ENV.CLIENT_KEY) : undefined;

/** Connection options every scenario spreads into its `options`. */
export const tlsOptions = {
  insecureSkipTLSVerify: __ENV.INSECURE === "1",
  tlsAuth: clientCert && clientKey ? [{ cert: clientCert, key: clientKey }] : [],
};

/**
 * "30s:10,1m:10,30s:0" -> k6 stages.
 * @param {string} [fallback]
 * @returns {Array<{ duration: string; target: number }>}
 */
export function stages(fallback) {
  const text = __ENV.STAGES || fallback || "30s:10,1m:10,30s:0";
  return text.split(",").map((/** @type {string} */ s) => {
    const [duration, target] = s.split(":");
    return { duration, target: Number(target) };
  });
}

/**
 * Request parameters: JSON, the token when given, and the `op` tag the thresholds select on.
 * @param {string} op
 * @param {import("k6/http").Params} [extra]
 * @returns {RequestParams}
 */
export function params(op, extra) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json", "Content-Type": "application/json" };
  if (__ENV.TOKEN) headers.Authorization = `Bearer ${__ENV.TOKEN}`;
  return Object.assign({ headers, tags: { op } }, extra || {});
}

/** @param {string} [query] */
export function configMapsUrl(query) {
  return `${BASE_URL}/api/v1/namespaces/${NAMESPACE}/configmaps${query ? `?${query}` : ""}`;
}

/** @param {string} runId */
export function selector(runId) {
  return `labelSelector=${encodeURIComponent(`${RUN_LABEL}=${runId}`)}`;
}

/**
 * Creates the namespace (an existing one is fine) and returns a run id for labels.
 * @returns {RunData}
 */
export function setupRun() {
  if (BASE_URL === "") throw new Error("set BASE_URL (k6 run -e BASE_URL=https://host:port ...)");
  const body = JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } });
  // An existing namespace (409) is expected: it does not count as a failed request.
  const r = http.post(`${BASE_URL}/api/v1/namespaces`, body, params("setup", { responseCallback: http.expectedStatuses(201, 409) }));
  if (r.status !== 201 && r.status !== 409) throw new Error(`creating namespace ${NAMESPACE}: ${r.status} ${r.body}`);
  return { runId: `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}` };
}

/**
 * Deletes the run's objects.
 * @param {RunData} data
 */
export function teardownRun(data) {
  http.del(configMapsUrl(selector(data.runId)), null, params("teardown"));
}

/**
 * @param {string} name
 * @param {string} runId
 * @param {Record<string, string>} data
 */
export function configMap(name, runId, data) {
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { [RUN_LABEL]: runId } }, data });
}
