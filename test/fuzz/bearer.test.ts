/**
 * Seeded fuzzing of the `Authorization` header against the apiserver process with
 * its default authorization (Node,RBAC), a static token file and bootstrap tokens.
 * Every generated header — JWT-shaped tokens with any algorithm, bootstrap-shaped
 * tokens, the one valid token with odd spacing or casing, garbage — must be answered
 * below 500 and must never reach a namespaced list that only the valid token's user
 * may read. `FUZZ_SEED` replays a run; `LONG=1` runs 25× as many cases.
 */
import { request } from "node:https";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";
import { arbitraryBearer } from "./arbitraries.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = LONG ? 2000 : 80;
const VALID = "fuzz-valid-token-0123456789";
const PATH = "/api/v1/namespaces/default/configmaps";

let server: ServerProcess;
let ca: string;
let tokens: string;

function get(authorization: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(PATH, server.url), { method: "GET", ca, agent: false, headers: { authorization, accept: "application/json" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe(`Authorization headers under fuzzing (seed ${SEED}, ${RUNS} runs)`, () => {
  beforeAll(async () => {
    tokens = join(tmpdir(), `fuzz-tokens-${process.pid}.csv`);
    // The valid token's user is in system:masters: only that token may read the list.
    writeFileSync(tokens, `${VALID},fuzz-admin,fuzz-admin-uid,system:masters\n`);
    server = await startServerProcess([`--token-auth-file=${tokens}`, "--enable-bootstrap-token-auth"]);
    ca = readFileSync(join(server.dir, "pki", "ca.crt"), "utf8");
  }, 90_000);

  afterAll(async () => {
    await server?.close();
    if (tokens) rmSync(tokens, { force: true });
  });

  it("the valid token reads the list (the oracle works)", async () => {
    expect((await get(`Bearer ${VALID}`)).status).toBe(200);
  });

  it("no generated header is answered 5xx or let through", async () => {
    const headers = fc.oneof(arbitraryBearer(), fc.constantFrom(`Bearer  ${VALID}`, `Bearer\t${VALID}`, `Bearer ${VALID}x`, `Bearer ${VALID.slice(0, -1)}`));
    await fc.assert(
      fc.asyncProperty(headers, async (header) => {
        const r = await get(header);
        if (r.status >= 500) throw new Error(`${JSON.stringify(header)}: ${r.status} ${r.body.slice(0, 200)}`);
        expect([401, 403]).toContain(r.status);
        expect(JSON.parse(r.body)).toMatchObject({ kind: "Status", code: r.status });
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);
});
