/**
 * The VU side of the k6 adapter, shared by the stand-in modules (k6.ts, k6-http.ts,
 * k6-metrics.ts) inside one VU worker: the samples recorded since the runner last
 * collected them, the declared custom metrics, the script's connection options, and
 * the synchronous bridge that has the runner thread send an HTTPS request while
 * this thread waits (k6's http calls block the VU, so the script sees them as
 * plain function calls): a message on the bridge port, Atomics.wait on a shared
 * flag, then the answer taken with receiveMessageOnPort.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import type { MetricType, Sample } from "./metrics.ts";

export interface BridgeRequest {
  method: string;
  url: string;
  body: string | undefined;
  headers: Record<string, string>;
  timeoutMs: number;
  tls: TlsSettings;
}

export interface BridgeResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
  durationMs: number;
  /** Set when no HTTP answer came (status 0). */
  error?: string;
}

export interface TlsSettings {
  insecureSkipTLSVerify: boolean;
  cert?: string;
  key?: string;
}

interface Bridge {
  port: MessagePort;
  flag: Int32Array;
}

let bridge: Bridge | undefined;
export const samples: Sample[] = [];
export const declared = new Map<string, MetricType>();
export const tls: TlsSettings = { insecureSkipTLSVerify: false };

export function connectBridge(port: MessagePort, shared: SharedArrayBuffer): void {
  bridge = { port, flag: new Int32Array(shared) };
}

export function record(metric: string, value: number, tags: Record<string, string> = {}): void {
  samples.push({ metric, value, tags });
}

/** Sends a request through the runner thread and blocks until its answer is in. */
export function sendSync(req: BridgeRequest): BridgeResponse {
  if (bridge === undefined) throw new Error("k6/http is used outside a VU of the adapter");
  Atomics.store(bridge.flag, 0, 0);
  bridge.port.postMessage(req);
  Atomics.wait(bridge.flag, 0, 0);
  const msg = receiveMessageOnPort(bridge.port);
  if (msg === undefined) throw new Error("k6 adapter: the runner signalled an answer but sent none");
  return msg.message as BridgeResponse;
}

/** Blocks the VU for `seconds` (k6's sleep). */
export function blockFor(seconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, seconds * 1000));
}
