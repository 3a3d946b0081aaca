/**
 * The k6 scenarios cannot run here (no k6), so each is loaded as an ES module with stub
 * `k6`, `k6/http` and `k6/metrics` modules and the k6 globals: it must parse, declare
 * `options` with thresholds and stages or an executor per scenario, and export every
 * function its scenarios name.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support/chart.ts";

const K6_DIR = join(ROOT, "loadtest", "k6");
const scripts = readdirSync(K6_DIR).filter((f) => f.endsWith(".js"));
const work = mkdtempSync(join(tmpdir(), "k6-stubs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const STUBS: Record<string, string> = {
  k6: "export function check() { return true; }\nexport function sleep() {}\nexport function group(_n, f) { return f(); }\nexport default {};\n",
  "k6/http": [
    "const res = { status: 200, body: '{}', json: () => ({}) };",
    "const http = { get: () => res, post: () => res, put: () => res, patch: () => res, del: () => res, request: () => res, expectedStatuses: (...s) => s };",
    "export default http;",
    "export const expectedStatuses = http.expectedStatuses;",
    "",
  ].join("\n"),
  "k6/metrics": "class Metric { add() {} }\nexport class Counter extends Metric {}\nexport class Trend extends Metric {}\nexport class Rate extends Metric {}\nexport class Gauge extends Metric {}\n",
};

// k6 globals of the init context.
Object.assign(globalThis, { __ENV: {}, __VU: 0, __ITER: 0, open: (path: string) => `contents of ${path}` });

/** Copies the k6 directory with its `k6...` imports pointed at the stubs. */
function prepare(): string {
  const stubUrl = (name: string) => pathToFileURL(join(work, "stubs", `${name.replace("/", "-")}.mjs`)).href;
  mkdirSync(join(work, "stubs"));
  for (const [name, text] of Object.entries(STUBS)) writeFileSync(join(work, "stubs", `${name.replace("/", "-")}.mjs`), text);
  const copy = (from: string, to: string) => {
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      if (entry.isDirectory()) copy(join(from, entry.name), join(to, entry.name));
      else if (entry.name.endsWith(".js")) {
        const text = readFileSync(join(from, entry.name), "utf8").replace(/from "(k6(?:\/[a-z]+)?)"/g, (_m, mod: string) => {
          if (!(mod in STUBS)) throw new Error(`${entry.name} imports ${mod}, which has no stub`);
          return `from "${stubUrl(mod)}"`;
        });
        writeFileSync(join(to, entry.name.replace(/\.js$/, ".mjs")), text.replace(/from "(\.\/[^"]+)\.js"/g, 'from "$1.mjs"'));
      }
    }
  };
  copy(K6_DIR, join(work, "k6"));
  return join(work, "k6");
}

interface K6Options {
  thresholds?: Record<string, string[]>;
  stages?: unknown[];
  scenarios?: Record<string, { executor: string; exec?: string; stages?: Array<{ duration: string; target: number }> }>;
}

describe("k6 scenarios", () => {
  const dir = prepare();

  it("exist: a CRUD mix, paginated lists and a watch-heavy scenario", () => {
    expect(scripts.sort()).toEqual(["crud.js", "list-pagination.js", "watch.js"]);
  });

  for (const script of scripts) {
    it(`${script} loads as an ES module and declares options with thresholds and its scenarios' functions`, async () => {
      const mod = (await import(pathToFileURL(join(dir, script.replace(/\.js$/, ".mjs"))).href)) as Record<string, unknown>;
      const options = mod.options as K6Options | undefined;
      expect(options, "options").toBeDefined();
      expect(Object.keys(options?.thresholds ?? {}).length).toBeGreaterThan(0);
      for (const list of Object.values(options?.thresholds ?? {})) for (const t of list) expect(t).toMatch(/^(rate|p\(\d+\)|count|avg|med|max|min)\s*(<|>|<=|>=|==)\s*\d/);
      const scenarios = Object.entries(options?.scenarios ?? {});
      expect(scenarios.length + (options?.stages?.length ?? 0)).toBeGreaterThan(0);
      for (const [name, sc] of scenarios) {
        expect(typeof mod[sc.exec ?? "default"], `${name} runs ${sc.exec ?? "default"}`).toBe("function");
        for (const stage of sc.stages ?? []) {
          expect(stage.duration).toMatch(/^\d+(ms|s|m|h)$/);
          expect(Number.isInteger(stage.target)).toBe(true);
        }
      }
      expect(typeof mod.setup).toBe("function");
      expect(typeof mod.teardown).toBe("function");
    });
  }
});
