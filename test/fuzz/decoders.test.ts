/**
 * Seeded fuzzing of every request decoder through the public HTTPS path of a real
 * replica: JSON (duplicate keys, depth), YAML, the protobuf envelope and messages,
 * CBOR, label and field selectors, continue tokens, resourceVersion/limit/timeout parameters, and patch documents of all four
 * types. Contract checked for every generated request:
 *   - the answer is a well-formed response below 500 (a Status for every refusal),
 *   - the replica keeps answering `/livez` afterwards (no crash, no stall),
 *   - the event loop is never blocked for long (the worst stall is printed; CI bounds
 *     it loosely because the machine is shared, the long run uses the 50 ms).
 * `FUZZ_SEED` replays a run; `LONG=1` (npm run test:long) runs 25× as many cases.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { HttpResponse } from "../support/https-client.ts";
import { arbitraryCbor, arbitraryContinue, arbitraryJsonBody, arbitraryPatch, arbitraryProtobuf, arbitrarySelector, arbitraryYaml, PATCH_TYPES } from "./arbitraries.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = LONG ? 1000 : 40;
/** Longest tolerated event-loop stall: the 50 ms in the long run; CI machines are shared and loaded. */
const MAX_STALL_MS = LONG ? 50 : 1000;
const NS = "fuzz";
const BASE = `/api/v1/namespaces/${NS}/configmaps`;

let server: TestApiserver;
let stalls: IntervalHistogram;
const seenStatuses = new Map<number, number>();

function record(r: HttpResponse): HttpResponse {
  seenStatuses.set(r.status, (seenStatuses.get(r.status) ?? 0) + 1);
  return r;
}

/** A response is acceptable when it is below 500 and every refusal is a Status document. */
function expectWellFormed(r: HttpResponse, what: string): void {
  if (r.status >= 500) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  if (r.status >= 400 && (r.headers["content-type"] ?? "").startsWith("application/json")) {
    const body = r.json<{ kind?: string; code?: number }>();
    if (body.kind !== "Status" || body.code !== r.status) throw new Error(`${what}: ${r.status} answered without a matching Status: ${r.text.slice(0, 300)}`);
  }
}

async function expectAlive(): Promise<void> {
  const live = await server.admin.request("GET", "/livez");
  expect(live.status).toBe(200);
}

const params = { seed: SEED, numRuns: RUNS, endOnFailure: true } as const;

describe(`request decoders under fuzzing (seed ${SEED}, ${RUNS} runs per decoder)`, () => {
  beforeAll(async () => {
    const gates = new FeatureGates();
    gates.set(["CBORServingAndStorage=true"]);
    server = await startTestApiserver({ gates });
    const ns = await server.admin.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    expect(ns.status).toBe(201);
    const cm = await server.admin.request("POST", BASE, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "target", labels: { a: "b" } }, data: { k: "v" } } });
    expect(cm.status).toBe(201);
    stalls = monitorEventLoopDelay({ resolution: 10 });
    stalls.enable();
  }, 60_000);

  afterAll(async () => {
    stalls?.disable();
    if (stalls) process.stdout.write(`fuzz: worst event-loop stall ${(stalls.max / 1e6).toFixed(1)} ms, p99 ${(stalls.percentile(99) / 1e6).toFixed(1)} ms; statuses ${JSON.stringify(Object.fromEntries(seenStatuses))}\n`);
    await server?.close();
  });

  it("JSON bodies (any value, duplicate keys, deep nesting) on create and update", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryJsonBody(), fc.constantFrom("POST", "PUT"), async (body, method) => {
        const path = method === "POST" ? BASE : `${BASE}/target`;
        expectWellFormed(record(await server.admin.request(method, path, { raw: body, headers: { "content-type": "application/json" } })), `${method} json`);
      }),
      params,
    );
    await expectAlive();
  }, 300_000);

  it("YAML bodies", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryYaml(), async (body) => {
        expectWellFormed(record(await server.admin.request("POST", BASE, { raw: body, headers: { "content-type": "application/yaml" } })), "yaml");
      }),
      params,
    );
    await expectAlive();
  }, 300_000);

  it("protobuf envelopes and messages", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryProtobuf(), async (body) => {
        expectWellFormed(record(await server.admin.request("POST", BASE, { raw: body, headers: { "content-type": server.profile.protobufMediaType } })), "protobuf");
      }),
      params,
    );
    await expectAlive();
  }, 300_000);

  it("CBOR bodies", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCbor(), async (body) => {
        expectWellFormed(record(await server.admin.request("POST", BASE, { raw: body, headers: { "content-type": "application/cbor" } })), "cbor");
      }),
      params,
    );
    await expectAlive();
  }, 300_000);

  it("patch documents of the four patch types", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATCH_TYPES), arbitraryPatch(), async (type, body) => {
        const query = type === "application/apply-patch+yaml" ? "?fieldManager=fuzz" : "";
        expectWellFormed(record(await server.admin.request("PATCH", `${BASE}/target${query}`, { raw: body, headers: { "content-type": type } })), `patch ${type}`);
      }),
      params,
    );
    await expectAlive();
  }, 300_000);

  it("label and field selectors, continue tokens, resourceVersion, limit and timeout parameters", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          labelSelector: fc.option(arbitrarySelector(), { nil: undefined }),
          fieldSelector: fc.option(arbitrarySelector(), { nil: undefined }),
          continue: fc.option(arbitraryContinue(), { nil: undefined }),
          resourceVersion: fc.option(fc.oneof(fc.string({ maxLength: 24 }), fc.bigInt({ min: -5n, max: 2n ** 70n }).map(String)), { nil: undefined }),
          resourceVersionMatch: fc.option(fc.constantFrom("Exact", "NotOlderThan", "bogus", ""), { nil: undefined }),
          limit: fc.option(fc.oneof(fc.integer({ min: -3, max: 5 }).map(String), fc.string({ maxLength: 8 })), { nil: undefined }),
          timeoutSeconds: fc.option(fc.integer({ min: -5, max: 1 }).map(String), { nil: undefined }),
        }),
        fc.boolean(),
        async (query, watch) => {
          const search = new URLSearchParams();
          for (const [k, v] of Object.entries(query)) if (v !== undefined) search.set(k, v);
          // A fuzzed watch is bounded to one second; a negative timeout must end it at once or be refused.
          if (watch) {
            search.set("watch", "1");
            search.set("timeoutSeconds", query.timeoutSeconds !== undefined && Number(query.timeoutSeconds) < 0 ? query.timeoutSeconds : "1");
          }
          expectWellFormed(record(await server.admin.request("GET", `${BASE}?${search}`)), `list ${search}`);
        },
      ),
      params,
    );
    await expectAlive();
  }, 300_000);

  it("never stalls the event loop for long", () => {
    expect(stalls.max / 1e6).toBeLessThan(MAX_STALL_MS);
  });
});
