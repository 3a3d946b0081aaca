/**
 * One virtual user of the k6 adapter, in a worker thread (started by runner.ts):
 * the k6 modules resolve to the stand-ins (hooks.mjs), the k6 globals are set
 * (__ENV, __VU, __ITER, open), the scenario script is imported, and then the
 * runner's calls are carried out one at a time: `call {fn, data, iter}` runs the
 * script's exported function and answers with its result (or error) and the
 * samples recorded meanwhile.
 */
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { connectBridge, declared, record, samples, tls } from "./runtime.ts";

export interface VuData {
  script: string;
  env: Record<string, string>;
  vu: number;
  port: MessagePort;
  flag: SharedArrayBuffer;
}

export interface VuCall {
  fn: string;
  data: unknown;
  iter: number;
  /** Counts as a scenario iteration (not setup/teardown). */
  iteration: boolean;
}

export type VuMessage =
  | { type: "ready"; options: unknown; declared: Array<[string, string]> }
  | { type: "done"; result?: unknown; error?: string; samples: typeof samples; declared: Array<[string, string]> }
  | { type: "failed"; error: string };

interface ScriptOptions {
  insecureSkipTLSVerify?: boolean;
  tlsAuth?: Array<{ cert: string; key: string }>;
}

const data = workerData as VuData;
const port = parentPort as MessagePort;
const globals = globalThis as Record<string, unknown>;

function drain(): typeof samples {
  return samples.splice(0, samples.length);
}

async function init(): Promise<void> {
  register("./hooks.mjs", import.meta.url);
  connectBridge(data.port, data.flag);
  const scriptDir = dirname(data.script);
  globals.__ENV = { ...data.env };
  globals.__VU = data.vu;
  globals.__ITER = 0;
  globals.open = (path: string) => readFileSync(resolve(scriptDir, path), "utf8");
  const mod = (await import(pathToFileURL(data.script).href)) as Record<string, unknown>;
  const options = (mod.options ?? {}) as ScriptOptions;
  tls.insecureSkipTLSVerify = options.insecureSkipTLSVerify === true;
  const auth = options.tlsAuth?.[0];
  if (auth !== undefined) [tls.cert, tls.key] = [auth.cert, auth.key];
  port.on("message", (call: VuCall) => {
    globals.__ITER = call.iter;
    const fn = mod[call.fn];
    const reply = (m: Omit<Extract<VuMessage, { type: "done" }>, "type" | "samples" | "declared">) => port.postMessage({ type: "done", ...m, samples: drain(), declared: [...declared] } satisfies VuMessage);
    if (typeof fn !== "function") {
      reply({ error: `${data.script} exports no function ${call.fn}` });
      return;
    }
    try {
      const result = (fn as (d: unknown) => unknown)(call.data);
      if (call.iteration) record("iterations", 1);
      reply({ result: result === undefined ? undefined : (JSON.parse(JSON.stringify(result)) as unknown) });
    } catch (err) {
      reply({ error: err instanceof Error ? err.message : String(err) });
    }
  });
  port.postMessage({ type: "ready", options: JSON.parse(JSON.stringify(mod.options ?? {})) as unknown, declared: [...declared] } satisfies VuMessage);
}

init().catch((err: unknown) => port.postMessage({ type: "failed", error: err instanceof Error ? (err.stack ?? err.message) : String(err) } satisfies VuMessage));
