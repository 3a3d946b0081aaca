/**
 * Resolves an APIService's `spec.service` to one endpoint, as the platform's aggregator
 * does with --enable-aggregator-routing: the Service's port (by number) gives the port
 * name; a ready address of the Service's EndpointSlices (label `<domain>/service-name`),
 * else of its Endpoints object, with the endpoint port of that name, is dialled
 * directly. The backend's certificate must name `<service>.<namespace>.svc`.
 *
 * Routing to endpoints (not to the Service's cluster IP) is the only mode here: this
 * server runs no service proxy, and on loopback an endpoint address is reachable.
 * A failure carries the `Available` condition's reason and message.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { ObjectAccess } from "../admission/interfaces.ts";
import { isObject, type JsonObject } from "../storage/object.ts";
import type { ServiceRef } from "./api-service.ts";

export interface Endpoint {
  host: string;
  port: number;
  /** The name the serving certificate must carry. */
  servername: string;
}

export class EndpointError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

function list(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function name(v: unknown): string {
  return typeof v === "string" ? v : "";
}

export type EndpointResolver = (svc: ServiceRef) => Promise<Endpoint>;

export function endpointResolver(profile: PlatformProfile, objects: ObjectAccess): EndpointResolver {
  const core = profile.group("core");
  const discovery = profile.group("discovery");
  return async (ref) => {
    const where = `service/${ref.name} in ${JSON.stringify(ref.namespace)}`;
    const servername = `${ref.name}.${ref.namespace}.svc`;
    const svc = await objects.get({ group: core, resource: "services", namespace: ref.namespace, name: ref.name }, { cached: true });
    if (!svc) throw new EndpointError("ServiceNotFound", `${where} is not present`);
    const spec = isObject(svc.spec) ? svc.spec : {};
    const sp = list(spec.ports).find((p) => p.port === ref.port);
    if (!sp) throw new EndpointError("ServicePortError", `${where} is not listening on port ${ref.port}`);
    const portName = name(sp.name);
    const slices = (await objects.list(discovery, "endpointslices", ref.namespace, { cached: true })).filter((s) => (isObject(s.metadata) && isObject(s.metadata.labels) ? s.metadata.labels[profile.labels.serviceName] : undefined) === ref.name);
    for (const slice of slices) {
      const port = list(slice.ports).find((p) => name(p.name) === portName);
      if (!port || typeof port.port !== "number") continue;
      for (const ep of list(slice.endpoints)) {
        const ready = isObject(ep.conditions) ? ep.conditions.ready : undefined;
        const address = Array.isArray(ep.addresses) ? ep.addresses.find((a): a is string => typeof a === "string") : undefined;
        if (ready !== false && address) return { host: address, port: port.port, servername };
      }
    }
    const endpoints = await objects.get({ group: core, resource: "endpoints", namespace: ref.namespace, name: ref.name }, { cached: true });
    for (const subset of list(endpoints?.subsets)) {
      const port = list(subset.ports).find((p) => name(p.name) === portName);
      const address = list(subset.addresses).find((a) => typeof a.ip === "string");
      if (port && typeof port.port === "number" && address) return { host: String(address.ip), port: port.port, servername };
    }
    if (!endpoints && slices.length === 0) throw new EndpointError("EndpointsNotFound", `cannot find endpoints for ${where}`);
    throw new EndpointError("MissingEndpoints", `endpoints for ${where} have no addresses with port name ${JSON.stringify(portName)}`);
  };
}
