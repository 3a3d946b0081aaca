/**
 * core/v1 Service and Endpoints.
 */
import { bool, enumOf, int32, intOrString, list, mapOf, obj, str, tag } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition } from "../../schema/types.ts";
import { ageColumn, formatSelectorMap, getPath, listAt, numAt, strAt } from "../table-cells.ts";
import { condition, objectKind } from "./meta-v1.ts";
import { C, PROTOCOLS, objectReference, protocol } from "./core-v1-common.ts";

type Obj = Record<string, unknown>;

export const SERVICE_TYPES = ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"];

export const servicePort = C(
  "ServicePort",
  obj(
    {
      name: tag(1, str({ description: "Port name, a DNS label; required when there are several ports." })),
      protocol: tag(2, protocol({ default: "TCP" })),
      appProtocol: tag(6, str({ description: "Application protocol hint." })),
      port: tag(3, int32({ minimum: 1, maximum: 65535, description: "Port exposed by the service." })),
      targetPort: tag(4, intOrString({ description: "Pod port number or name; the port by default." })),
      nodePort: tag(5, int32({ minimum: 0, maximum: 65535, description: "Port on every node (NodePort, LoadBalancer)." })),
    },
    { required: ["port"], description: "A port of a service." },
  ),
);

export const serviceSpec = C(
  "ServiceSpec",
  obj(
    {
      ports: tag(
        1,
        list(servicePort, { listType: "map", mapKeys: ["port", "protocol"], patchStrategy: "merge", patchMergeKey: "port", description: "Ports of the service." }),
      ),
      selector: tag(2, mapOf(str(), { mapType: "atomic", description: "Labels of the pods behind the service." })),
      clusterIP: tag(3, str({ immutable: true, description: "Virtual IP, `None` for a headless service; allocated when empty." })),
      clusterIPs: tag(18, list(str(), { listType: "atomic", maxItems: 2, immutable: true, description: "Virtual IPs, one per IP family." })),
      type: tag(4, enumOf(SERVICE_TYPES, { default: "ClusterIP", description: "How the service is exposed." })),
      externalIPs: tag(5, list(str(), { listType: "atomic", description: "Extra IPs that nodes accept traffic for." })),
      sessionAffinity: tag(7, enumOf(["ClientIP", "None"], { default: "None", description: "Session affinity." })),
      loadBalancerIP: tag(8, str({ description: "Deprecated: requested load balancer IP." })),
      loadBalancerSourceRanges: tag(9, list(str(), { listType: "atomic", description: "Client CIDRs allowed through the load balancer." })),
      externalName: tag(10, str({ description: "DNS name an ExternalName service aliases." })),
      externalTrafficPolicy: tag(11, enumOf(["Cluster", "Local"], { description: "Routing of external traffic." })),
      healthCheckNodePort: tag(12, int32({ description: "Health check node port (LoadBalancer with Local policy)." })),
      publishNotReadyAddresses: tag(13, bool()),
      sessionAffinityConfig: tag(
        14,
        C(
          "SessionAffinityConfig",
          obj({ clientIP: tag(1, C("ClientIPConfig", obj({ timeoutSeconds: tag(1, int32({ minimum: 1, maximum: 86400 })) }))) }),
        ),
      ),
      ipFamilies: tag(19, list(enumOf(["IPv4", "IPv6"]), { listType: "atomic", maxItems: 2 })),
      ipFamilyPolicy: tag(17, enumOf(["SingleStack", "PreferDualStack", "RequireDualStack"])),
      allocateLoadBalancerNodePorts: tag(20, bool()),
      loadBalancerClass: tag(21, str({ immutable: true, description: "Load balancer implementation." })),
      internalTrafficPolicy: tag(22, enumOf(["Cluster", "Local"], { description: "Routing of traffic to the cluster IP." })),
      trafficDistribution: tag(23, str({ description: "Traffic distribution hint (PreferClose, PreferSameZone, PreferSameNode)." })),
    },
    { description: "Desired state of a service." },
  ),
);

export const portStatus = C(
  "PortStatus",
  obj({ port: tag(1, int32()), protocol: tag(2, enumOf(PROTOCOLS)), error: tag(3, str({ maxLength: 316 })) }, { required: ["port", "protocol"] }),
);

export const loadBalancerStatus = C(
  "LoadBalancerStatus",
  obj({
    ingress: tag(
      1,
      list(
        C(
          "LoadBalancerIngress",
          obj({ ip: tag(1, str()), hostname: tag(2, str()), ipMode: tag(3, enumOf(["VIP", "Proxy"])), ports: tag(4, list(portStatus, { listType: "atomic" })) }),
        ),
        { listType: "atomic" },
      ),
    ),
  }),
);

export const serviceStatus = C(
  "ServiceStatus",
  obj({
    loadBalancer: tag(1, loadBalancerStatus),
    conditions: tag(2, list(condition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" })),
  }),
);

function defaultService(svc: Obj): void {
  const spec = svc.spec;
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) return;
  const s = spec as Obj;
  for (const p of listAt(s, "ports")) {
    const port = p as Obj;
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === "") port.targetPort = port.port;
  }
  const type = strAt(s, "type");
  const externallyAccessible = type === "NodePort" || type === "LoadBalancer" || (type === "ClusterIP" && listAt(s, "externalIPs").length > 0);
  if (externallyAccessible && !s.externalTrafficPolicy) s.externalTrafficPolicy = "Cluster";
  if ((type === "ClusterIP" || type === "NodePort" || type === "LoadBalancer") && !s.internalTrafficPolicy) s.internalTrafficPolicy = "Cluster";
  if (type === "LoadBalancer" && s.allocateLoadBalancerNodePorts === undefined) s.allocateLoadBalancerNodePorts = true;
  if (type === "LoadBalancer") {
    for (const ing of listAt(svc, "status.loadBalancer.ingress")) {
      const i = ing as Obj;
      if (typeof i.ip === "string" && i.ip !== "" && i.ipMode === undefined) i.ipMode = "VIP";
    }
  }
  if (s.sessionAffinity === "ClientIP") {
    const cfg = (typeof s.sessionAffinityConfig === "object" && s.sessionAffinityConfig !== null ? s.sessionAffinityConfig : {}) as Obj;
    const clientIP = (typeof cfg.clientIP === "object" && cfg.clientIP !== null ? cfg.clientIP : {}) as Obj;
    if (clientIP.timeoutSeconds === undefined) clientIP.timeoutSeconds = 10800;
    cfg.clientIP = clientIP;
    s.sessionAffinityConfig = cfg;
  }
}

const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/**
 * Service rules beyond the schema. Names are DNS-1035 labels (they become DNS
 * names and environment variable prefixes): the schema's `dns1123-label` rule
 * plus a leading letter. Ports are required except for ExternalName and
 * headless services; with several ports each needs a unique name; node ports
 * only on NodePort and LoadBalancer services; ExternalName needs a name.
 */
function validateService(svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = strAt(svc, "metadata.name");
  if (/^[0-9][-a-z0-9]*$/.test(name) && !name.endsWith("-") && name.length <= 63) errs.push(fieldErrors.invalid("metadata.name", name, DNS1035_MSG));
  const type = strAt(svc, "spec.type") || "ClusterIP";
  const ports = listAt(svc, "spec.ports");
  const headless = strAt(svc, "spec.clusterIP") === "None";
  const rawPorts = getPath(svc, "spec.ports");
  if ((rawPorts === undefined || ports.length === 0) && Array.isArray(rawPorts ?? []) && !headless && type !== "ExternalName") errs.push(fieldErrors.required("spec.ports"));
  if (type === "ExternalName" && !strAt(svc, "spec.externalName")) errs.push(fieldErrors.required("spec.externalName"));
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const portName = strAt(p, "name");
    if (ports.length > 1 && portName === "") errs.push(fieldErrors.required(`spec.ports[${i}].name`));
    else if (portName !== "" && names.has(portName)) errs.push(fieldErrors.duplicate(`spec.ports[${i}].name`, portName));
    names.add(portName);
    if (numAt(p, "nodePort") !== 0 && type !== "NodePort" && type !== "LoadBalancer") {
      errs.push(fieldErrors.forbidden(`spec.ports[${i}].nodePort`, `may not be used when \`type\` is '${type}'`));
    }
  });
  return errs;
}

/** EXTERNAL-IP as the CLI prints it. */
export function serviceExternalIP(svc: Obj): string {
  const external = listAt(svc, "spec.externalIPs").map(String);
  switch (strAt(svc, "spec.type") || "ClusterIP") {
    case "ClusterIP":
    case "NodePort":
      return external.length > 0 ? external.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = listAt(svc, "status.loadBalancer.ingress")
        .map((i) => strAt(i, "ip") || strAt(i, "hostname"))
        .filter((x) => x !== "");
      const all = [...external, ...lb];
      return all.length > 0 ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return strAt(svc, "spec.externalName");
    default:
      return "<unknown>";
  }
}

/** PORT(S) as the CLI prints it: `80/TCP,443:30443/TCP`. */
export function servicePorts(svc: Obj): string {
  const parts = listAt(svc, "spec.ports").map((p) => {
    const nodePort = numAt(p, "nodePort");
    return `${numAt(p, "port")}${nodePort > 0 ? `:${nodePort}` : ""}/${strAt(p, "protocol") || "TCP"}`;
  });
  return parts.length > 0 ? parts.join(",") : "<none>";
}

export const serviceKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "Service",
  plural: "services",
  singular: "service",
  namespaced: true,
  shortNames: ["svc"],
  categories: ["all"],
  subresources: ["status", "proxy"],
  nameFormat: "dns1123-label",
  schema: C("Service", objectKind({ spec: tag(2, serviceSpec), status: tag(3, serviceStatus) })),
  tableColumns: [
    { name: "Type", type: "string", description: "Service type.", cell: (o) => strAt(o, "spec.type") },
    { name: "Cluster-IP", type: "string", description: "Cluster IP.", cell: (o) => strAt(o, "spec.clusterIP") || "<none>" },
    { name: "External-IP", type: "string", description: "External IPs.", cell: serviceExternalIP },
    { name: "Port(s)", type: "string", description: "Ports.", cell: servicePorts },
    ageColumn,
    { name: "Selector", type: "string", priority: 1, description: "Pod selector.", cell: (o) => formatSelectorMap(getPath(o, "spec.selector")) },
  ],
  protobuf: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaulter: defaultService,
  validateKind: validateService,
};

// ---- Endpoints ----

export const endpointAddress = C(
  "EndpointAddress",
  obj(
    { ip: tag(1, str()), hostname: tag(3, str()), nodeName: tag(4, str()), targetRef: tag(2, objectReference) },
    { required: ["ip"], mapType: "atomic", description: "An endpoint IP address." },
  ),
);

export const endpointPort = C(
  "EndpointPort",
  obj(
    { name: tag(1, str()), port: tag(2, int32({ minimum: 1, maximum: 65535 })), protocol: tag(3, protocol({ default: "TCP" })), appProtocol: tag(4, str()) },
    { required: ["port"], mapType: "atomic", description: "An endpoint port." },
  ),
);

export const endpointSubset = C(
  "EndpointSubset",
  obj(
    {
      addresses: tag(1, list(endpointAddress, { listType: "atomic" })),
      notReadyAddresses: tag(2, list(endpointAddress, { listType: "atomic" })),
      ports: tag(3, list(endpointPort, { listType: "atomic" })),
    },
    { description: "Addresses sharing a set of ports." },
  ),
);

/** ENDPOINTS as the CLI prints it: up to three `ip:port` entries, then `+ N more...`. */
export function formatEndpoints(ep: Obj): string {
  const subsets = listAt(ep, "subsets");
  if (subsets.length === 0) return "<none>";
  const max = 3;
  const out: string[] = [];
  let more = false;
  let count = 0;
  const hostPort = (ip: string, port: number) => (ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`);
  for (const ss of subsets) {
    const addrs = listAt(ss, "addresses");
    const ports = listAt(ss, "ports");
    if (ports.length === 0) {
      count += addrs.length;
      for (const a of addrs) {
        if (out.length === max) {
          more = true;
          break;
        }
        out.push(strAt(a, "ip"));
      }
      continue;
    }
    for (const p of ports) {
      count += addrs.length;
      for (const a of addrs) {
        if (out.length === max) {
          more = true;
          break;
        }
        out.push(hostPort(strAt(a, "ip"), numAt(p, "port")));
      }
    }
  }
  const joined = out.join(",");
  if (more) return `${joined} + ${count - max} more...`;
  return joined === "" ? "<none>" : joined;
}

export const endpointsKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "Endpoints",
  plural: "endpoints",
  singular: "endpoints",
  namespaced: true,
  shortNames: ["ep"],
  schema: C("Endpoints", objectKind({ subsets: tag(2, list(endpointSubset, { listType: "atomic" })) })),
  tableColumns: [{ name: "Endpoints", type: "string", description: "Endpoint addresses.", cell: formatEndpoints }, ageColumn],
  protobuf: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  deprecated: { replacement: "discovery/v1 EndpointSlice" },
};
