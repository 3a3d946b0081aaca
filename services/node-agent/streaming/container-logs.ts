/**
 * GET /containerLogs/{namespace}/{pod}/{container}: a container's log, read from the file
 * the runtime names in its ContainerStatus (`log_path`, CRI log format), with the
 * platform agent's query (`follow`, `previous`, `timestamps`, `tailLines` or the older
 * `tail`, `sinceSeconds`, `sinceTime`, `limitBytes`) and its answers:
 * 400 `{"message": "Unable to decode query."}`, 422 `{"message": "Invalid request."}`,
 * 404 `pod "p" does not exist` / `container "c" not found in pod "p"`, and 400 with the
 * reason when there is nothing to read (`container "c" in pod "p" is waiting to start:
 * ContainerCreating`, `previous terminated container "c" in pod "p" not found`).
 * A follow stream reads the file as it grows and ends when the client goes away, the
 * byte limit is reached, or the container stops running.
 */
import { open, type FileHandle } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import type { RuntimeClient } from "../cri/runtime-client.ts";
import type { Container } from "../cri/runtime-proto.ts";
import { LogRenderer, splitRecords, tailRecords, type LogRenderOptions } from "./cri-log.ts";

export interface ContainerLogsDeps {
  runtime: RuntimeClient;
  findPod(namespace: string, name: string): ApiObject | undefined;
  /** How often a follow stream looks for new lines (ms). */
  pollMs?: number;
  /** How often a follow stream asks the runtime whether the container still runs (ms). */
  stateCheckMs?: number;
  now?: () => number;
}

const TEXT = "text/plain; charset=utf-8";

export interface ParsedLogQuery extends LogRenderOptions {
  follow: boolean;
  previous: boolean;
}

class QueryError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function integer(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v.trim())) throw new QueryError(400, '{"message": "Unable to decode query."}');
  return Number(v);
}

function flag(q: URLSearchParams, key: string): boolean {
  const v = q.get(key);
  if (v === null) return false;
  if (!["true", "false", "1", "0", "t", "f", "TRUE", "FALSE", "True", "False", ""].includes(v)) throw new QueryError(400, '{"message": "Unable to decode query."}');
  return v === "" || ["true", "1", "t", "TRUE", "True"].includes(v);
}

/** The agent's reading of a log query; throws a QueryError with the agent's status and text. */
export function parseLogQuery(q: URLSearchParams, nowMs: number): ParsedLogQuery {
  const tail = q.get("tail");
  const query = new URLSearchParams(q);
  if (tail !== null && tail !== "") {
    if (tail === "all") query.delete("tailLines");
    else query.set("tailLines", tail);
  }
  const tailLines = integer(query, "tailLines");
  const limitBytes = integer(query, "limitBytes");
  const sinceSeconds = integer(query, "sinceSeconds");
  const sinceTime = query.get("sinceTime");
  let sinceMs: number | undefined;
  if (sinceTime !== null) {
    sinceMs = Date.parse(sinceTime);
    if (Number.isNaN(sinceMs)) throw new QueryError(400, '{"message": "Unable to decode query."}');
  }
  const invalid = (tailLines !== undefined && tailLines < 0) || (limitBytes !== undefined && limitBytes < 1) || (sinceSeconds !== undefined && sinceSeconds < 1) || (sinceSeconds !== undefined && sinceTime !== null);
  if (invalid) throw new QueryError(422, '{"message": "Invalid request."}');
  if (sinceSeconds !== undefined) sinceMs = nowMs - sinceSeconds * 1000;
  return { follow: flag(query, "follow"), previous: flag(query, "previous"), timestamps: flag(query, "timestamps"), tailLines, limitBytes, sinceMs };
}

function declares(pod: ApiObject, container: string): boolean {
  const spec = (pod.spec ?? {}) as Record<string, Array<{ name?: string }> | undefined>;
  return ["containers", "initContainers", "ephemeralContainers"].some((f) => (spec[f] ?? []).some((c) => c.name === container));
}

/** The runtime's instances of the pod's container, newest attempt first. */
export async function instances(runtime: RuntimeClient, pod: ApiObject, container: string): Promise<Container[]> {
  const { name, namespace, uid } = pod.metadata;
  const sandboxes = (await runtime.listPodSandbox()).filter((s) => {
    const m = s.metadata;
    return !!m && m.name === name && m.namespace === namespace && (!uid || !m.uid || m.uid === uid);
  });
  const found: Container[] = [];
  for (const s of sandboxes) found.push(...(await runtime.listContainers({ pod_sandbox_id: s.id })).filter((c) => c.metadata?.name === container));
  return found.sort((a, b) => (b.metadata?.attempt ?? 0) - (a.metadata?.attempt ?? 0) || Number(BigInt(b.created_at || "0") - BigInt(a.created_at || "0")));
}

function fail(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": TEXT, "content-length": Buffer.byteLength(text), "x-content-type-options": "nosniff" });
  res.end(text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readMore(file: FileHandle, position: number): Promise<{ text: string; position: number }> {
  const chunks: Buffer[] = [];
  let pos = position;
  for (;;) {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await file.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), position: pos };
}

export async function serveContainerLogs(deps: ContainerLogsDeps, namespace: string, podName: string, container: string, query: URLSearchParams, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const now = deps.now ?? Date.now;
  let opts: ParsedLogQuery;
  try {
    opts = parseLogQuery(query, now());
  } catch (err) {
    if (err instanceof QueryError) return fail(res, err.status, err.message);
    throw err;
  }
  const pod = deps.findPod(namespace, podName);
  if (!pod) return fail(res, 404, `pod "${podName}" does not exist`);
  if (!declares(pod, container)) return fail(res, 404, `container "${container}" not found in pod "${podName}"`);
  const found = await instances(deps.runtime, pod, container);
  // The previous instance is the one before the newest, and only once it has exited (the platform's lastState.terminated).
  const chosen = opts.previous ? (found[1]?.state === "CONTAINER_EXITED" ? found[1] : undefined) : found[0];
  if (!chosen) {
    return fail(res, 400, opts.previous ? `previous terminated container "${container}" in pod "${podName}" not found` : `container "${container}" in pod "${podName}" is waiting to start: ContainerCreating`);
  }
  const status = await deps.runtime.containerStatus(chosen.id);
  if (!status?.log_path) return fail(res, 400, `failed to get container status "${chosen.id}": no log path`);
  let file: FileHandle;
  try {
    file = await open(status.log_path, "r");
  } catch (err) {
    return fail(res, 400, `failed to open log file "${status.log_path}": ${(err as Error).message}`);
  }
  let closed = false;
  req.on("close", () => (closed = true));
  res.on("close", () => (closed = true));
  try {
    res.writeHead(200, { "content-type": TEXT, "transfer-encoding": "chunked", "x-content-type-options": "nosniff" });
    res.flushHeaders();
    const renderer = new LogRenderer(opts);
    let { text, position } = await readMore(file, 0);
    let { records, rest } = splitRecords(text);
    res.write(renderer.render(tailRecords(records, opts.tailLines)));
    const follow = opts.follow && !opts.previous;
    let lastStateCheck = now();
    while (follow && !closed && !renderer.exhausted) {
      await sleep(deps.pollMs ?? 200);
      ({ text, position } = await readMore(file, position));
      ({ records, rest } = splitRecords(rest + text));
      if (records.length > 0) res.write(renderer.render(records));
      if (now() - lastStateCheck >= (deps.stateCheckMs ?? 2000)) {
        lastStateCheck = now();
        const current = await deps.runtime.containerStatus(chosen.id).catch(() => null);
        if (current?.state !== "CONTAINER_RUNNING") {
          ({ text } = await readMore(file, position));
          const last = splitRecords(rest + text).records;
          if (last.length > 0 && !closed) res.write(renderer.render(last));
          break;
        }
      }
    }
    res.end();
  } finally {
    await file.close();
  }
}
