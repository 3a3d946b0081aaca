/**
 * pods/{name}/exec, /attach and /portforward: the connect subresources, as the platform
 * serves them. A WebSocket upgrade arrives as GET (authorized as `get` by the filter
 * chain) and must also be allowed to `create` (the AuthorizePodWebsocketUpgradeCreatePermission
 * check, on by default since 1.35); POST is authorized as `create`. Then, in the
 * platform's order: the options (PodExecOptions, PodAttachOptions,
 * PodPortForwardOptions) go through admission as a CONNECT operation (mutating then
 * validating, plugins and webhooks), the pod's container is chosen (as for logs) and
 * its node found (400 when it has none), a request that is not an upgrade is refused
 * with 400 `Upgrade request required`, and the upgrade is proxied as raw bytes to the
 * node agent's `/exec`, `/attach` or `/portForward` over HTTPS with the replica's agent
 * client certificate. The agent's refusals become Status errors. `admitConnect` is also
 * the CONNECT admission of the proxy subresources (handlers/resource-proxy.ts, node-proxy.ts).
 */
import { badRequest, internalError } from "../../../shared/api/status.ts";
import { isUpgradeRequest, proxyUpgrade, upgradeHeaders, type UpgradeOutcome } from "../../../shared/stream/upgrade-proxy.ts";
import type { Catalog } from "../registry/catalog.ts";
import { agentStreamPath, connectOptions, type ConnectSubresource } from "../registry/pod-exec-options.ts";
import { chooseContainer } from "../registry/pod-log-location.ts";
import type { AdmissionRequest } from "../registry/registry.ts";
import { isObject, type JsonObject } from "../storage/object.ts";
import { agentFailure, locateAgent, type KubeletClientConfig } from "./handlers/kubelet-client.ts";
import type { RequestScope } from "./scope.ts";
import { upgradeConnection } from "./upgrade.ts";

/**
 * CONNECT admission of a connect request (exec, attach, portforward, proxy): mutating,
 * then validating; the (possibly mutated) options. `options.kind` names the options kind
 * admission sees (PodExecOptions, PodProxyOptions, NodeProxyOptions, …).
 */
export async function admitConnect(s: RequestScope, catalog: Catalog, sub: string, options: JsonObject): Promise<JsonObject> {
  const hooks = catalog.options.admission;
  if (!hooks) return options;
  const resource = { ...s.resource, kind: String(options.kind) };
  const req: AdmissionRequest = {
    operation: "CONNECT",
    resource,
    name: s.name ?? "",
    namespace: s.namespace ?? "",
    object: options,
    oldObject: undefined,
    ctx: { resource, namespace: s.namespace, name: s.name ?? "", subresource: sub, dryRun: false, user: s.user, warnings: s.warnings, annotations: s.annotations },
  };
  const admitted = (await hooks.admit?.(req)) ?? options;
  await hooks.validate?.({ ...req, object: admitted });
  return admitted;
}

export async function handlePodConnect(s: RequestScope, catalog: Catalog, kubelet: KubeletClientConfig | undefined, sub: ConnectSubresource): Promise<Response> {
  if (s.verb === "get") await s.authorizeVerb?.("create");
  const name = s.name as string;
  const options = await admitConnect(s, catalog, sub, connectOptions(sub, s.query));
  const pod = await s.registry.get(s.namespace, name);
  const container = sub === "portforward" ? undefined : chooseContainer(pod, typeof options.container === "string" ? options.container : undefined);
  const spec = isObject(pod.spec) ? pod.spec : {};
  const nodeName = typeof spec.nodeName === "string" ? spec.nodeName : "";
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const header = (h: string) => s.request.headers.get(h);
  if (!isUpgradeRequest(header)) throw badRequest("Upgrade request required");
  const { cfg, at } = await locateAgent(catalog, nodeName, kubelet);
  const connection = upgradeConnection(s.request);
  if (!connection || connection.taken) throw badRequest("Upgrade request required");
  const host = at.host.includes(":") ? `[${at.host}]` : at.host;
  let outcome: UpgradeOutcome;
  try {
    outcome = await proxyUpgrade(connection.socket, connection.head, {
      url: new URL(`https://${host}:${at.port}${agentStreamPath(sub, s.namespace ?? "", name, container, options)}`),
      method: s.request.method,
      headers: upgradeHeaders(header),
      tls: { cert: cfg.certPem, key: cfg.keyPem, ca: cfg.caPem, rejectUnauthorized: !!cfg.caPem, servername: /^[\d.]+$|:/.test(at.host) ? undefined : at.host },
    });
  } catch (err) {
    throw internalError(`error dialing backend: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!outcome.upgraded) throw await agentFailure(outcome.response, `pods/${sub}`, name);
  connection.taken = true;
  return new Response(null, { status: 200 });
}
