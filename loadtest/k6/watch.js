// Watch-heavy: many watchers and a few writers. k6 cannot read a streaming response as it
// arrives, so each watcher iteration is a list (limit=1, for the resourceVersion) and then
// a watch from that version that the server ends after WATCH_TIMEOUT seconds (default 10);
// the events that arrived are counted from the body. Writers create and patch ConfigMaps
// at WRITE_RATE per second (default 20) so that watchers receive events.
//   k6 run -e BASE_URL=... -e TOKEN=... -e STAGES=30s:100,2m:100,30s:0 loadtest/k6/watch.js
import http from "k6/http";
import { check } from "k6";
import { Counter } from "k6/metrics";
import { configMap, configMapsUrl, params, selector, setupRun, stages, teardownRun, tlsOptions } from "./lib/config.js";

const WATCH_TIMEOUT = Number(__ENV.WATCH_TIMEOUT || 10);
const WRITE_RATE = Number(__ENV.WRITE_RATE || 20);
const events = new Counter("watch_events");
const watchErrors = new Counter("watch_error_events");

export const options = Object.assign({}, tlsOptions, {
  scenarios: {
    watchers: { executor: "ramping-vus", exec: "watcher", startVUs: 0, stages: stages("30s:50,2m:50,30s:0"), gracefulRampDown: `${WATCH_TIMEOUT + 5}s` },
    writers: { executor: "constant-arrival-rate", exec: "writer", rate: WRITE_RATE, timeUnit: "1s", duration: "3m", preAllocatedVUs: 10, maxVUs: 50 },
  },
  thresholds: {
    "http_req_failed{op:watch}": ["rate<0.01"],
    "http_req_failed{op:write}": ["rate<0.01"],
    "http_req_duration{op:list}": ["p(95)<500"],
    "http_req_duration{op:write}": ["p(95)<500"],
    // A watch lasts its timeout; much longer means the server did not end it.
    "http_req_duration{op:watch}": [`p(99)<${(WATCH_TIMEOUT + 5) * 1000}`],
    watch_events: ["count>0"],
    watch_error_events: ["count==0"],
  },
});

export function setup() {
  return setupRun();
}

/** @param {import("./lib/config.js").RunData} data */
export function watcher(data) {
  const l = http.get(configMapsUrl(`limit=1&${selector(data.runId)}`), params("list"));
  if (!check(l, { "list 200": (r) => r.status === 200 })) return;
  const rv = l.json("metadata.resourceVersion");
  const q = `watch=1&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=${WATCH_TIMEOUT}&${selector(data.runId)}`;
  const w = http.get(configMapsUrl(q), params("watch", { timeout: `${WATCH_TIMEOUT + 30}s` }));
  check(w, { "watch 200": (r) => r.status === 200 });
  for (const line of String(w.body || "").split("\n")) {
    if (line === "") continue;
    const type = JSON.parse(line).type;
    if (type === "ERROR") watchErrors.add(1);
    else if (type !== "BOOKMARK") events.add(1);
  }
}

/** @param {import("./lib/config.js").RunData} data */
export function writer(data) {
  const name = `watch-${data.runId}-${__VU % 20}`;
  // 404 (not created yet) and 409 (created by another writer) are expected, not failures.
  const patchParams = params("write", { responseCallback: http.expectedStatuses(200, 404) });
  patchParams.headers["Content-Type"] = "application/merge-patch+json";
  const p = http.patch(`${configMapsUrl()}/${name}`, JSON.stringify({ data: { at: String(Date.now()) } }), patchParams);
  if (p.status === 404) {
    const c = http.post(configMapsUrl(), configMap(name, data.runId, { at: String(Date.now()) }), params("write", { responseCallback: http.expectedStatuses(201, 409) }));
    check(c, { "create 201 or 409": (r) => r.status === 201 || r.status === 409 });
    return;
  }
  check(p, { "patch 200": (r) => r.status === 200 });
}

/** @param {import("./lib/config.js").RunData} data */
export function teardown(data) {
  teardownRun(data);
}
