/**
 * Codec benchmark (`npm run bench -- codec`): encoding one list of BENCH_CODEC_OBJECTS
 * (10,000) ConfigMaps shaped as the apiserver stores them (metadata with uid,
 * resourceVersion, creationTimestamp and one managedFields entry), CPU only, in this
 * process. Side by side in interleaved rounds (min/median/max of the per-round ratios):
 * - the protobuf list body as served (list-stream.ts, compiled encoder) vs JSON.stringify
 *   of the same list;
 * - the whole list through encodeList (compiled encoder) vs JSON.stringify;
 * - the reference encoder (one buffer per nested message) vs JSON.stringify: the
 *   encoder before the compiled one, for comparison.
 */
import { performance } from "node:perf_hooks";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { PAUSE } from "../../shared/codec/chunked-stream.ts";
import { encodeEnvelope, encodeList, encodeMessageReference, listLayout } from "../../shared/codec/protobuf/index.ts";
import { protobufListBody } from "../../shared/codec/protobuf/list-stream.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { RatioTable, interleave, machineLoad } from "./harness.ts";

type Obj = Record<string, unknown>;

function storedConfigMap(i: number): Obj {
  return {
    metadata: {
      name: `o-${i}`,
      namespace: "big",
      uid: `6f1c2a4e-0b7d-4f3e-9a51-${String(i).padStart(12, "0")}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: "2026-11-26T01:20:35Z",
      managedFields: [{ manager: "bench", operation: "Update", apiVersion: "v1", time: "2026-11-26T01:20:35Z", fieldsType: "FieldsV1", fieldsV1: { "f:data": { ".": {}, "f:j": {} } } }],
    },
    data: { j: String(i) },
  };
}

/** Milliseconds per call of `fn`, over `calls` calls. */
function timed(calls: number, fn: () => unknown): number {
  const t = performance.now();
  for (let i = 0; i < calls; i++) fn();
  return (performance.now() - t) / calls;
}

export async function benchCodec(): Promise<Record<string, number>> {
  const objects = Number(process.env.BENCH_CODEC_OBJECTS ?? 10_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const calls = Number(process.env.BENCH_CODEC_CALLS ?? 5);
  process.stdout.write(`machine before: ${machineLoad()}\n`);
  const profile = getProfile("kubernetes");
  const def = builtinKinds(profile).find((k) => k.group === "core" && k.kind === "ConfigMap");
  if (!def) throw new Error("no ConfigMap kind");
  const items = Array.from({ length: objects }, (_, i) => storedConfigMap(i));
  const list: Obj = { apiVersion: "v1", kind: "ConfigMapList", metadata: { resourceVersion: "99999" }, items };
  const streamed = (): number => {
    let bytes = 0;
    for (const piece of protobufListBody(def, profile, { metadata: { resourceVersion: "99999" }, count: items.length, item: (i) => items[i] })) if (piece !== PAUSE) bytes += piece.length;
    return bytes;
  };
  const reference = () => encodeEnvelope({ apiVersion: "v1", kind: "ConfigMapList", raw: encodeMessageReference(listLayout(def), list) });
  const json = () => JSON.stringify(list);
  const sizes = { json: Buffer.byteLength(json()), protobuf: streamed(), whole: encodeList(def, list, profile).length };
  if (sizes.protobuf !== sizes.whole || reference().length !== sizes.whole) throw new Error(`protobuf sizes differ: ${JSON.stringify(sizes)}`);
  // Warm-up: compile the encoders and let the JIT see every path.
  for (let i = 0; i < 3; i++) {
    streamed();
    reference();
    json();
    encodeList(def, list, profile);
  }
  const table = new RatioTable(`codec, ${objects} ConfigMaps (JSON ${sizes.json} bytes, protobuf ${sizes.protobuf} bytes)`);
  const pair = async (key: string, label: string, aName: string, a: () => unknown) => {
    const res = await interleave(
      rounds,
      async () => timed(calls, a),
      async () => timed(calls, json),
    );
    table.add({ key, label, aName, bName: "JSON.stringify", a: res.a, b: res.b, unit: "ms", better: "lower" });
  };
  await pair("list_body", "encode list, as served", "protobuf list body", streamed);
  await pair("list_whole", "encode list, whole", "protobuf encodeList", () => encodeList(def, list, profile));
  await pair("list_reference", "encode list, whole", "reference protobuf encoder", reference);
  process.stdout.write(`${table.render()}machine after: ${machineLoad()}\n`);
  return { ...table.figures(), json_bytes: sizes.json, protobuf_bytes: sizes.protobuf };
}
