/**
 * `clientConfig.service` → an endpoint: the Service's port (by number) gives the
 * port name; a ready endpoint of the Service's EndpointSlices (label
 * `<domain>/service-name`), else of its Endpoints object, gives the address and
 * target port. The certificate must name `<service>.<namespace>.svc`.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { ObjectAccess } from "../interfaces.ts";
import { WebhookCallError, type ServiceEndpoint, type ServiceResolver } from "./client.ts";

function list(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

export function serviceResolver(profile: PlatformProfile, objects: ObjectAccess): ServiceResolver {
  const core = profile.group("core");
  const discovery = profile.group("discovery");
  return async (namespace, name, port): Promise<ServiceEndpoint> => {
    const servername = `${name}.${namespace}.svc`;
    const svc = await objects.get({ group: core, resource: "services", namespace, name });
    if (!svc) throw new WebhookCallError(`service "${name}" not found`);
    const ports = list((svc.spec as JsonObject | undefined)?.ports);
    const sp = ports.find((p) => p.port === port);
    if (!sp) throw new WebhookCallError(`service ${namespace}/${name} has no port ${port}`);
    const portName = typeof sp.name === "string" ? sp.name : "";
    const slices = (await objects.list(discovery, "endpointslices", namespace)).filter(
      (s) => (s.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[profile.labels.serviceName] === name,
    );
    for (const slice of slices) {
      const slicePort = list(slice.ports).find((p) => (typeof p.name === "string" ? p.name : "") === portName);
      if (!slicePort || typeof slicePort.port !== "number") continue;
      for (const ep of list(slice.endpoints)) {
        const ready = (ep.conditions as { ready?: boolean } | undefined)?.ready;
        const address = Array.isArray(ep.addresses) ? ep.addresses.find((x): x is string => typeof x === "string") : undefined;
        if (ready !== false && address) return { host: address, port: slicePort.port, servername };
      }
    }
    const endpoints = await objects.get({ group: core, resource: "endpoints", namespace, name });
    for (const subset of list(endpoints?.subsets)) {
      const p = list(subset.ports).find((x) => (typeof x.name === "string" ? x.name : "") === portName);
      const address = list(subset.addresses).find((x) => typeof x.ip === "string");
      if (p && typeof p.port === "number" && address) return { host: String(address.ip), port: p.port, servername };
    }
    throw new WebhookCallError(`no endpoints available for service "${name}"`);
  };
}
