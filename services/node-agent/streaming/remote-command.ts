/**
 * The agent's streaming endpoints, served on upgrade requests as the platform's agent
 * serves them: `/exec/{namespace}/{pod}/{container}` (query: `command` repeated,
 * `stdin`, `stdout`, `stderr`, `tty`), `/attach/{namespace}/{pod}/{container}` and
 * `/portForward/{namespace}/{pod}` (query `port` repeated; the ports travel in the
 * stream headers). The pod must be one of this node's, the container one of its
 * running instances; the runtime's Exec, Attach or PortForward call answers a
 * streaming URL and the upgrade is proxied there as raw bytes (upgrade-proxy.ts). A
 * refusal is a plain-text answer with the agent's status: 400 for bad options, 404 for
 * an unknown pod or container, 500 for a runtime failure.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { proxyUpgrade, upgradeHeaders, writeRawResponse } from "../../../shared/stream/upgrade-proxy.ts";
import type { RuntimeClient } from "../cri/runtime-client.ts";
import { instances } from "./container-logs.ts";

export interface RemoteCommandDeps {
  runtime: RuntimeClient;
  findPod(namespace: string, name: string): ApiObject | undefined;
}

const TEXT = { "content-type": "text/plain; charset=utf-8" };
const ROUTES = /^\/(exec|attach)\/([^/]+)\/([^/]+)\/(?:[^/]+\/)?([^/]+)\/?$|^\/portForward\/([^/]+)\/([^/]+)\/?$/;

class AgentRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const TRUE = new Set(["1", "true", "True", "TRUE", "t", "T"]);

/** The agent's reading of a stream option (`1` and `true` are true, absent is false). */
function flag(q: URLSearchParams, key: string): boolean {
  return TRUE.has(q.get(key) ?? "");
}

/** True for a path this module serves. */
export function isStreamingPath(path: string): boolean {
  return ROUTES.test(path);
}

async function streamingUrl(deps: RemoteCommandDeps, path: string, q: URLSearchParams): Promise<string> {
  const m = ROUTES.exec(path);
  if (!m) throw new AgentRefusal(404, "404 page not found");
  const kind = m[1] ?? "portForward";
  const [namespace, podName] = (m[1] ? [m[2], m[3]] : [m[5], m[6]]).map((s) => decodeURIComponent(s));
  const pod = deps.findPod(namespace, podName);
  if (!pod) throw new AgentRefusal(404, `pod does not exist`);
  if (kind === "portForward") {
    const sandboxes = (await deps.runtime.listPodSandbox()).filter((s) => s.metadata?.name === podName && s.metadata.namespace === namespace && s.state === "SANDBOX_READY");
    if (sandboxes.length === 0) throw new AgentRefusal(404, `pod not found (${JSON.stringify(`${podName}_${namespace}`)})`);
    const ports = q.getAll("port").map(Number);
    return deps.runtime.portForward(sandboxes[0].id, ports.filter((p) => Number.isInteger(p) && p > 0 && p < 65536));
  }
  const container = decodeURIComponent(m[4]);
  const opts = { stdin: flag(q, "input") || flag(q, "stdin"), stdout: flag(q, "output") || flag(q, "stdout"), stderr: flag(q, "error") || flag(q, "stderr"), tty: flag(q, "tty") };
  if (!opts.stdin && !opts.stdout && !opts.stderr) throw new AgentRefusal(400, "you must specify at least 1 of stdin, stdout, stderr");
  const running = (await instances(deps.runtime, pod, container)).find((c) => c.state === "CONTAINER_RUNNING");
  if (!running) throw new AgentRefusal(404, `container not found (${JSON.stringify(container)})`);
  if (kind === "attach") return deps.runtime.attach({ container_id: running.id, ...opts });
  const cmd = q.getAll("command");
  if (cmd.length === 0) throw new AgentRefusal(400, "you must specify at least one command for the container");
  return deps.runtime.exec({ container_id: running.id, cmd, ...opts });
}

/** Serves one upgrade request on a streaming path; the socket is answered or joined to the runtime. */
export async function serveRemoteCommand(deps: RemoteCommandDeps, req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
  let target: string;
  try {
    target = await streamingUrl(deps, url.pathname, url.searchParams);
  } catch (err) {
    const status = err instanceof AgentRefusal ? err.status : 500;
    return writeRawResponse(socket, status, TEXT, Buffer.from(err instanceof Error ? err.message : String(err)));
  }
  const get = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v.join(", ") : v;
  };
  try {
    const outcome = await proxyUpgrade(socket, head, { url: new URL(target), method: req.method ?? "GET", headers: upgradeHeaders(get) });
    if (!outcome.upgraded) {
      const chunks: Buffer[] = [];
      for await (const c of outcome.response) chunks.push(c as Buffer);
      const headers: Record<string, string> = {};
      const type = outcome.response.headers["content-type"];
      if (type) headers["content-type"] = type;
      writeRawResponse(socket, outcome.response.statusCode ?? 500, headers, Buffer.concat(chunks));
    }
  } catch (err) {
    writeRawResponse(socket, 500, TEXT, Buffer.from(`error dialing the runtime's streaming server: ${err instanceof Error ? err.message : String(err)}`));
  }
}
