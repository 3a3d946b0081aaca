/**
 * Where a pod's log is read, as pure functions: the PodLogOptions of a `pods/{name}/log`
 * query (validated with the platform's field errors, 422 `PodLogOptions "<pod>" is
 * invalid`), the container (defaulted when the pod has exactly one, else 400 naming the
 * choices), the node agent's address (the Node's first address of the preferred types and
 * its `daemonEndpoints.kubeletEndpoint.Port`), and the agent's path and query
 * (`/containerLogs/{namespace}/{pod}/{container}`).
 */
import { badRequest, internalError, invalid, type StatusError } from "../../../shared/api/status.ts";
import { queryBool } from "./query-bool.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";

/** The platform's default `--kubelet-preferred-address-types`. */
export const DEFAULT_PREFERRED_ADDRESS_TYPES = ["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"];
/** The agent's port when the Node does not say (the platform's 10250). */
export const DEFAULT_AGENT_PORT = 10250;

export interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

function int(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key);
  if (v === null || v === "") return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** The query of a log request; 400 for a value that does not parse, 422 for one the platform refuses. */
export function parsePodLogOptions(q: URLSearchParams, podName: string): PodLogOptions {
  const sinceTime = q.get("sinceTime") || undefined;
  if (sinceTime !== undefined && Number.isNaN(Date.parse(sinceTime))) throw badRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse`);
  const opts: PodLogOptions = {
    container: q.get("container") || undefined,
    follow: queryBool(q, "follow"),
    previous: queryBool(q, "previous"),
    timestamps: queryBool(q, "timestamps"),
    sinceSeconds: int(q, "sinceSeconds"),
    sinceTime,
    tailLines: int(q, "tailLines"),
    limitBytes: int(q, "limitBytes"),
  };
  const errors: FieldError[] = [];
  if (opts.tailLines !== undefined && opts.tailLines < 0) errors.push(fieldErrors.invalid("tailLines", opts.tailLines, "must be greater than or equal to 0"));
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) errors.push(fieldErrors.invalid("limitBytes", opts.limitBytes, "must be greater than 0"));
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined) errors.push(fieldErrors.forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
  else if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) errors.push(fieldErrors.invalid("sinceSeconds", opts.sinceSeconds, "must be greater than 0"));
  if (errors.length > 0) throw invalid("PodLogOptions", podName, errors);
  return opts;
}

/** Every container name of the pod: init, regular, then ephemeral (the platform's visiting order). */
function containerNames(pod: JsonObject): string[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const names: string[] = [];
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    const items = Array.isArray(spec[list]) ? spec[list] : [];
    for (const c of items) if (isObject(c) && typeof c.name === "string") names.push(c.name);
  }
  return names;
}

/** The container a request means: the named one (which must exist) or the pod's only container. */
export function chooseContainer(pod: JsonObject, requested: string | undefined): string {
  const name = meta(pod).name ?? "";
  if (requested) {
    if (!containerNames(pod).includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  const spec = isObject(pod.spec) ? pod.spec : {};
  const regular = Array.isArray(spec.containers) ? spec.containers.filter(isObject) : [];
  if (regular.length === 1 && typeof regular[0].name === "string") return regular[0].name;
  if (regular.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  return failChoice(name, containerNames(pod));
}

function failChoice(pod: string, names: string[]): never {
  throw badRequest(`a container name must be specified for pod ${pod}, choose one of: [${names.join(" ")}]`);
}

export interface AgentLocation {
  host: string;
  port: number;
}

/** The node agent's address from its Node object; a 500 error when none of the preferred types is known. */
export function agentLocation(node: JsonObject, preferredTypes: readonly string[]): AgentLocation | StatusError {
  const status = isObject(node.status) ? node.status : {};
  const addresses = (Array.isArray(status.addresses) ? status.addresses : []).filter(isObject) as Array<{ type?: string; address?: string }>;
  const endpoints = isObject(status.daemonEndpoints) ? status.daemonEndpoints : {};
  const agent = isObject(endpoints.kubeletEndpoint) ? endpoints.kubeletEndpoint : {};
  const port = typeof agent.Port === "number" && agent.Port > 0 ? agent.Port : DEFAULT_AGENT_PORT;
  for (const type of preferredTypes) {
    const found = addresses.find((a) => a.type === type && a.address);
    if (found?.address) return { host: found.address, port };
  }
  const known = addresses.map((a) => `{${a.type ?? ""} ${a.address ?? ""}}`).join(" ");
  return internalError(`no preferred addresses found; known addresses: [${known}]`);
}

/** The agent's path and query for the log of `container`. */
export function containerLogsPath(namespace: string, pod: string, container: string, opts: PodLogOptions): string {
  const q = new URLSearchParams();
  if (opts.follow) q.set("follow", "true");
  if (opts.previous) q.set("previous", "true");
  if (opts.timestamps) q.set("timestamps", "true");
  if (opts.sinceSeconds !== undefined) q.set("sinceSeconds", String(opts.sinceSeconds));
  if (opts.sinceTime !== undefined) q.set("sinceTime", opts.sinceTime);
  if (opts.tailLines !== undefined) q.set("tailLines", String(opts.tailLines));
  if (opts.limitBytes !== undefined) q.set("limitBytes", String(opts.limitBytes));
  const query = q.toString();
  const path = `/containerLogs/${[namespace, pod, container].map(encodeURIComponent).join("/")}`;
  return query ? `${path}?${query}` : path;
}
