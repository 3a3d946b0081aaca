/**
 * The replica's HTTPS client to node agents, used by the connect subresources
 * (`pods/log`, later exec/attach/portforward/proxy): the client certificate of
 * `--kubelet-client-certificate`/`--kubelet-client-key`, the agent's serving certificate
 * checked against `--kubelet-certificate-authority` when given (not checked otherwise, as
 * on the platform), and the Node address chosen by `--kubelet-preferred-address-types`.
 * `openAgentStream` answers the agent's response as a stream; the caller turns a
 * non-2xx answer into a Status with `agentFailure`.
 */
import { readFile } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { badRequest, internalError, notFound, qualifiedResource, statusError, type StatusError, type StatusReason } from "../../../../shared/api/status.ts";
import type { FlagSpec, FlagValues } from "../../../../shared/cli/flags.ts";
import type { Catalog } from "../../registry/catalog.ts";
import { agentLocation, DEFAULT_PREFERRED_ADDRESS_TYPES, type AgentLocation } from "../../registry/pod-log-location.ts";

export interface KubeletClientConfig {
  certPem?: string;
  keyPem?: string;
  /** CA of the agents' serving certificates; undefined: not verified. */
  caPem?: string;
  preferredAddressTypes: readonly string[];
}

export const KUBELET_CLIENT_FLAGS: Record<string, FlagSpec> = {
  "kubelet-client-certificate": { kind: "string", help: "client certificate file for TLS to node agents" },
  "kubelet-client-key": { kind: "string", help: "client key file for TLS to node agents" },
  "kubelet-certificate-authority": { kind: "string", help: "CA file of the node agents' serving certificates (unset: not verified)" },
  "kubelet-preferred-address-types": { kind: "list", default: DEFAULT_PREFERRED_ADDRESS_TYPES, help: "Node address types to reach node agents by, in order" },
};

/** The client configuration from the parsed flags (files read). */
export async function kubeletClientFrom(flags: FlagValues): Promise<KubeletClientConfig> {
  const file = async (key: string) => (flags[key] ? readFile(String(flags[key]), "utf8") : undefined);
  const types = flags["kubelet-preferred-address-types"];
  return {
    certPem: await file("kubelet-client-certificate"),
    keyPem: await file("kubelet-client-key"),
    caPem: await file("kubelet-certificate-authority"),
    preferredAddressTypes: Array.isArray(types) && types.length > 0 ? types : DEFAULT_PREFERRED_ADDRESS_TYPES,
  };
}

/** A request to the agent beyond a plain GET (the proxy subresource forwards these). */
export interface AgentRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
}

/** `pathAndQuery` on the agent (GET unless `request` says); resolves with its response (headers read, body streaming). */
export function openAgentStream(cfg: KubeletClientConfig, at: AgentLocation, pathAndQuery: string, signal: AbortSignal, request: AgentRequest = {}): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: at.host,
        port: at.port,
        path: pathAndQuery,
        method: request.method ?? "GET",
        headers: request.headers,
        cert: cfg.certPem,
        key: cfg.keyPem,
        ca: cfg.caPem,
        rejectUnauthorized: !!cfg.caPem,
        servername: /^[\d.]+$|:/.test(at.host) ? undefined : at.host,
        signal,
      },
      resolve,
    );
    req.on("error", (err) => reject(internalError(`error dialing backend: ${err.message}`)));
    req.end(request.body && request.body.byteLength > 0 ? request.body : undefined);
  });
}

/** The agent of a node: its Node's preferred address and port (404 for an unknown node), with the client settings. */
export async function locateAgent(catalog: Catalog, nodeName: string, kubelet: KubeletClientConfig | undefined): Promise<{ cfg: KubeletClientConfig; at: AgentLocation }> {
  const nodes = catalog.lookup("", "v1", "nodes");
  if (!nodes) throw notFound("nodes", nodeName);
  const node = await nodes.registry.get(undefined, nodeName);
  const cfg = kubelet ?? { preferredAddressTypes: DEFAULT_PREFERRED_ADDRESS_TYPES };
  const at = agentLocation(node, cfg.preferredAddressTypes);
  if (at instanceof Error) throw at;
  return { cfg, at };
}

async function bodyText(res: IncomingMessage, limit = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res) {
    const b = chunk as Buffer;
    total += b.byteLength;
    if (total <= limit) chunks.push(b);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A non-2xx agent answer as the platform's Status: 400 and 500 carry the agent's text, others a generic server response. */
export async function agentFailure(res: IncomingMessage, resource: string, name: string): Promise<StatusError> {
  const text = await bodyText(res);
  const code = res.statusCode ?? 500;
  if (code === 400) return badRequest(text);
  if (code === 500) return internalError(text);
  const generic: Record<number, [string, string]> = {
    401: ["Unauthorized", "the server has asked for the client to provide credentials"],
    403: ["Forbidden", "the server does not allow access to the requested resource"],
    404: ["NotFound", "the server could not find the requested resource"],
    422: ["Invalid", "the server rejected our request due to an error in our request"],
  };
  const [reason, message] = generic[code] ?? ["InternalError", `an error on the server ("${text}") has prevented the request from succeeding`];
  return statusError({
    code,
    reason: reason as StatusReason,
    message: `${message} ( ${qualifiedResource(resource)} ${name})`,
    details: { name, kind: resource, causes: [{ reason: "UnexpectedServerResponse", message: text }] },
  });
}

/**
 * The agent's body as a web stream, read at the client's pace. It ends quietly when the
 * agent's stream ends or breaks (the client then sees the end of the log), and closes
 * the agent connection when the client goes away.
 */
export function agentBody(res: IncomingMessage): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const finish = () => {
        if (finished) return;
        finished = true;
        controller.close();
      };
      res.on("data", (chunk: Buffer) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.on("end", finish);
      res.on("error", finish);
      res.on("close", finish);
    },
    pull() {
      res.resume();
    },
    cancel() {
      finished = true;
      res.destroy();
    },
  });
}
