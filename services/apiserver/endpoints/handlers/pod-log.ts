/**
 * GET pods/{name}/log: the container's log streamed from the node agent that runs the
 * pod (`/containerLogs/{namespace}/{pod}/{container}` over HTTPS with the replica's
 * agent client certificate). The query is PodLogOptions (container, follow, previous,
 * timestamps, sinceSeconds, sinceTime, tailLines, limitBytes); a pod not bound to a node
 * answers an empty log, as on the platform; the agent's refusals become Status errors
 * (400 and 500 with the agent's text). The response is `text/plain`, unbuffered, and
 * ends when the agent's stream ends or the client goes away.
 */
import type { Catalog } from "../../registry/catalog.ts";
import { chooseContainer, containerLogsPath, parsePodLogOptions } from "../../registry/pod-log-location.ts";
import { isObject } from "../../storage/object.ts";
import type { RequestScope } from "../scope.ts";
import { agentBody, agentFailure, locateAgent, openAgentStream, type KubeletClientConfig } from "./kubelet-client.ts";

const LOG_HEADERS = { "content-type": "text/plain", "x-content-type-options": "nosniff" };

export async function handlePodLog(s: RequestScope, catalog: Catalog, kubelet: KubeletClientConfig | undefined): Promise<Response> {
  const name = s.name as string;
  const opts = parsePodLogOptions(s.query, name);
  const pod = await s.registry.get(s.namespace, name);
  const container = chooseContainer(pod, opts.container);
  const spec = isObject(pod.spec) ? pod.spec : {};
  const nodeName = typeof spec.nodeName === "string" ? spec.nodeName : "";
  if (!nodeName) return new Response("", { status: 200, headers: LOG_HEADERS });
  const { cfg, at } = await locateAgent(catalog, nodeName, kubelet);
  const abort = new AbortController();
  s.request.signal.addEventListener("abort", () => abort.abort(), { once: true });
  const res = await openAgentStream(cfg, at, containerLogsPath(s.namespace ?? "", name, container, opts), abort.signal);
  const code = res.statusCode ?? 500;
  if (code < 200 || code > 206) throw await agentFailure(res, "pods/log", name);
  return new Response(agentBody(res), { status: 200, headers: LOG_HEADERS });
}
