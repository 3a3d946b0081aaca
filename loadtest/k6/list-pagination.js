// Paginated lists: setup creates SEED ConfigMaps (default 300); each iteration reads them
// all with limit=PAGE_SIZE (default 50) and continue tokens, and checks the total.
//   k6 run -e BASE_URL=... -e TOKEN=... -e SEED=1000 -e PAGE_SIZE=100 loadtest/k6/list-pagination.js
import http from "k6/http";
import { check } from "k6";
import { Trend } from "k6/metrics";
import { configMap, configMapsUrl, params, selector, setupRun, stages, teardownRun, tlsOptions } from "./lib/config.js";

const SEED = Number(__ENV.SEED || 300);
const PAGE_SIZE = Number(__ENV.PAGE_SIZE || 50);
const pagesPerList = new Trend("list_pages");

export const options = Object.assign({}, tlsOptions, {
  setupTimeout: "5m",
  scenarios: {
    list: { executor: "ramping-vus", startVUs: 0, stages: stages("20s:5,1m:5,20s:0"), gracefulRampDown: "10s" },
  },
  thresholds: {
    http_req_failed: ["rate<0.01"],
    "http_req_duration{op:list}": ["p(95)<500", "p(99)<1000"],
    checks: ["rate>0.99"],
  },
});

export function setup() {
  const data = setupRun();
  for (let i = 0; i < SEED; i++) {
    const r = http.post(configMapsUrl(), configMap(`seed-${data.runId}-${i}`, data.runId, { i: String(i) }), params("seed"));
    if (r.status !== 201) throw new Error(`seeding: ${r.status} ${r.body}`);
  }
  return data;
}

/** @param {import("./lib/config.js").RunData} data */
export default function (data) {
  let cont = "";
  let total = 0;
  let pages = 0;
  do {
    const q = `limit=${PAGE_SIZE}&${selector(data.runId)}${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`;
    const r = http.get(configMapsUrl(q), params("list"));
    if (!check(r, { "page 200": (x) => x.status === 200 })) return;
    const body = /** @type {{ items: unknown[]; metadata?: { continue?: string } }} */ (r.json());
    total += body.items.length;
    pages++;
    cont = (body.metadata && body.metadata.continue) || "";
  } while (cont !== "" && pages < 10000);
  pagesPerList.add(pages);
  check(total, { "every seeded object listed once": (n) => n === SEED });
}

/** @param {import("./lib/config.js").RunData} data */
export function teardown(data) {
  teardownRun(data);
}
