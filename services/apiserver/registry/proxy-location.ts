/**
 * Where `pods/{name}/proxy` and `services/{name}/proxy` send a request, as pure
 * functions after the platform's rules:
 * - the name is `[scheme:]name[:port]` with scheme `http` or `https` (400
 *   `invalid pod request "…"` / `invalid service request "…"` otherwise);
 * - a pod: its `status.podIP`, the port of the name or else the first declared
 *   container port (none: the scheme's default); an address that is not an IP or is
 *   link-local (the cloud metadata range) is 400 `address not allowed`. Loopback is
 *   allowed here, unlike the platform: the test runtime maps pods onto loopback;
 * - a service: a port number of the name picks the service port of that number by its
 *   name (503 `no service port N found for service "s"`), a port name is used as is;
 *   the first ready endpoint of the service's EndpointSlices with that port name gives
 *   address and port (503 `no endpoints available for service "…"`).
 */
import { badRequest, serviceUnavailable } from "../../../shared/api/status.ts";
import { isObject, type JsonObject } from "../storage/object.ts";

export interface ProxyName {
  scheme: "http" | "https";
  name: string;
  port: string;
}

/** `[scheme:]name[:port]`; undefined when it is not of that shape. */
export function splitSchemeNamePort(id: string): ProxyName | undefined {
  const parts = id.split(":");
  const [scheme, name, port] = parts.length === 1 ? ["", parts[0], ""] : parts.length === 2 ? ["", parts[0], parts[1]] : parts.length === 3 ? parts : ["", "", ""];
  if (!name || (scheme !== "" && scheme !== "http" && scheme !== "https")) return undefined;
  return { scheme: scheme === "https" ? "https" : "http", name, port };
}

export function parseProxyName(resource: "pod" | "service", id: string): ProxyName {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw badRequest(`invalid ${resource} request ${JSON.stringify(id)}`);
  return parsed;
}

export interface ProxyTarget {
  scheme: "http" | "https";
  host: string;
  port?: number;
}

function list(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function isIPv4(s: string): boolean {
  return /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(s) && s.split(".").every((o) => Number(o) <= 255);
}

/** The platform's proxyable check, loopback allowed (see the header). */
export function checkProxyableIP(ip: string): void {
  const v4 = isIPv4(ip);
  const v6 = !v4 && /^[0-9a-fA-F:]+$/.test(ip) && ip.includes(":");
  if (!v4 && !v6) throw badRequest("address not allowed");
  const linkLocal = v4 ? ip.startsWith("169.254.") || ip.startsWith("224.0.0.") : /^fe[89ab]/i.test(ip) || /^ff02:/i.test(ip);
  if (linkLocal) throw badRequest("address not allowed");
}

function portNumber(port: string, resource: string): number | undefined {
  if (port === "") return undefined;
  const n = Number(port);
  if (!/^\d+$/.test(port) || n < 1 || n > 65535) throw badRequest(`invalid ${resource} request port ${JSON.stringify(port)}`);
  return n;
}

export function podProxyTarget(pod: JsonObject, name: ProxyName): ProxyTarget {
  let port = portNumber(name.port, "pod");
  if (port === undefined) {
    const spec = isObject(pod.spec) ? pod.spec : {};
    for (const c of list(spec.containers)) {
      const first = list(c.ports)[0];
      if (first && typeof first.containerPort === "number") {
        port = first.containerPort;
        break;
      }
    }
  }
  const status = isObject(pod.status) ? pod.status : {};
  const ip = typeof status.podIP === "string" ? status.podIP : "";
  checkProxyableIP(ip);
  return { scheme: name.scheme, host: ip, port };
}

export function serviceProxyTarget(service: JsonObject, slices: JsonObject[], name: ProxyName, id: string): ProxyTarget {
  let portName = name.port;
  if (/^\d+$/.test(portName)) {
    const spec = isObject(service.spec) ? service.spec : {};
    const sp = list(spec.ports).find((p) => p.port === Number(portName));
    if (!sp) throw serviceUnavailable(`no service port ${portName} found for service ${JSON.stringify(name.name)}`);
    portName = typeof sp.name === "string" ? sp.name : "";
  }
  for (const slice of slices) {
    const slicePort = list(slice.ports).find((p) => (typeof p.name === "string" ? p.name : "") === portName);
    if (!slicePort || typeof slicePort.port !== "number") continue;
    for (const ep of list(slice.endpoints)) {
      const ready = isObject(ep.conditions) ? ep.conditions.ready : undefined;
      const address = Array.isArray(ep.addresses) ? ep.addresses.find((a): a is string => typeof a === "string") : undefined;
      if (ready === false || !address) continue;
      checkProxyableIP(address);
      return { scheme: name.scheme, host: address, port: slicePort.port };
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`);
}
