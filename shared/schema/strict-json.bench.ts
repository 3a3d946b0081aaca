/**
 * Benchmark of the strict JSON decoder (`npx tsx shared/schema/strict-json.bench.ts`):
 * milliseconds per decode of three ~550 KB request bodies — a ConfigMap with a few
 * large values, a ConfigMap with many small entries, and a CRD-like document of
 * nested schema objects — next to JSON.parse of the same text (median of rounds).
 * A figure to read, not a test: it asserts nothing.
 */
import { performance } from "node:perf_hooks";
import { decodeJsonStrict } from "./strict-json.ts";

const TARGET_BYTES = 550 * 1024;

function fewLargeValues(): string {
  const data: Record<string, string> = {};
  for (let i = 0; i < 5; i++) data[`file-${i}.conf`] = `line ${i}\\n`.repeat(1).padEnd(TARGET_BYTES / 5, "abcdefghij \"q\" \\ xyz");
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big", namespace: "default" }, data });
}

function manySmallEntries(): string {
  const data: Record<string, string> = {};
  for (let i = 0; JSON.stringify(data).length < TARGET_BYTES; i++) data[`key-${i}`] = `value-${i}-${"x".repeat(60)}`;
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "many", namespace: "default", labels: { a: "b" } }, data });
}

function schemaLike(): string {
  const props: Record<string, unknown> = {};
  for (let i = 0; JSON.stringify(props).length < TARGET_BYTES; i++) {
    props[`field${i}`] = { type: "object", description: `Field number ${i} of the generated schema.`, properties: { name: { type: "string", maxLength: 63 }, count: { type: "integer", minimum: 0, maximum: 4294967296 }, tags: { type: "array", items: { type: "string" } } }, required: ["name"] };
  }
  return JSON.stringify({ apiVersion: "apiextensions.example/v1", kind: "CustomResourceDefinition", metadata: { name: "widgets.example.test" }, spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: { type: "object", properties: props } } }] } });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function msPer(fn: () => unknown, calls: number): number {
  const t = performance.now();
  for (let i = 0; i < calls; i++) fn();
  return (performance.now() - t) / calls;
}

const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const calls = Number(process.env.BENCH_CALLS ?? 5);
for (const [name, text] of [["few large values", fewLargeValues()], ["many small entries", manySmallEntries()], ["schema-like", schemaLike()]] as const) {
  const strict: number[] = [];
  const native: number[] = [];
  for (let r = 0; r < rounds; r++) {
    strict.push(msPer(() => decodeJsonStrict(text), calls));
    native.push(msPer(() => JSON.parse(text), calls));
  }
  process.stdout.write(`${name} (${(text.length / 1024).toFixed(0)} KiB): strict ${median(strict).toFixed(2)} ms, JSON.parse ${median(native).toFixed(2)} ms, ratio ${(median(strict) / median(native)).toFixed(1)}x\n`);
}
