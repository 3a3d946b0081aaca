// CRUD mix on ConfigMaps: create, get, merge-patch, list by label, delete.
//   k6 run -e BASE_URL=https://api.example:443 -e TOKEN=... loadtest/k6/crud.js
import http from "k6/http";
import { check } from "k6";
import { Counter } from "k6/metrics";
import { configMap, configMapsUrl, params, selector, setupRun, stages, teardownRun, tlsOptions } from "./lib/config.js";

const created = new Counter("configmaps_created");

export const options = Object.assign({}, tlsOptions, {
  scenarios: {
    crud: { executor: "ramping-vus", startVUs: 0, stages: stages(), gracefulRampDown: "10s" },
  },
  thresholds: {
    http_req_failed: ["rate<0.01"],
    "http_req_duration{op:create}": ["p(95)<500", "p(99)<1000"],
    "http_req_duration{op:get}": ["p(95)<200", "p(99)<500"],
    "http_req_duration{op:patch}": ["p(95)<500", "p(99)<1000"],
    "http_req_duration{op:list}": ["p(95)<500"],
    "http_req_duration{op:delete}": ["p(95)<500"],
    checks: ["rate>0.99"],
  },
});

export function setup() {
  return setupRun();
}

/** @param {import("./lib/config.js").RunData} data */
export default function (data) {
  const name = `crud-${data.runId}-${__VU}-${__ITER}`;
  const url = configMapsUrl();
  const c = http.post(url, configMap(name, data.runId, { step: "created" }), params("create"));
  if (!check(c, { "create 201": (r) => r.status === 201 })) return;
  created.add(1);
  const g = http.get(`${url}/${name}`, params("get"));
  check(g, { "get 200": (r) => r.status === 200 });
  const patchParams = params("patch");
  patchParams.headers["Content-Type"] = "application/merge-patch+json";
  const p = http.patch(`${url}/${name}`, JSON.stringify({ data: { step: "patched" } }), patchParams);
  check(p, { "patch 200": (r) => r.status === 200 && r.json("data.step") === "patched" });
  const l = http.get(configMapsUrl(`limit=20&${selector(data.runId)}`), params("list"));
  check(l, { "list 200": (r) => r.status === 200 });
  const d = http.del(`${url}/${name}`, null, params("delete"));
  check(d, { "delete 200": (r) => r.status === 200 || r.status === 202 });
}

/** @param {import("./lib/config.js").RunData} data */
export function teardown(data) {
  teardownRun(data);
}
