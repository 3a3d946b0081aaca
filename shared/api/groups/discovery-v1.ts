/**
 * discovery/v1: EndpointSlice. Protobuf field numbers are the platform's
 * (discovery/v1 generated.proto). `deprecatedTopology` is kept for reading
 * objects written through v1beta1; writes through v1 leave it alone.
 */
import { bool, enumOf, format, int32, list, mapOf, named, obj, str, tag, withOpts } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { isDNS1123Label, isDNS1123Subdomain, isIPv4, isIPv6 } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath, listAt } from "../table-cells.ts";
import { objectReference } from "./core-v1.ts";
import { objectKind } from "./meta-v1.ts";
import { isObj, portNumErrors, type Obj } from "./workload-rules.ts";

const D = (name: string, schema: Schema): Schema => named("discovery", "v1", name, schema);

export const ADDRESS_TYPES = ["IPv4", "IPv6", "FQDN"];

export const endpointConditions = D(
  "EndpointConditions",
  obj(
    {
      ready: tag(1, bool({ description: "Ready to receive traffic; unknown when unset (read as ready)." })),
      serving: tag(2, bool({ description: "Able to receive traffic, regardless of terminating; read as ready when unset." })),
      terminating: tag(3, bool({ description: "The endpoint is terminating; read as false when unset." })),
    },
    { description: "Current condition of an endpoint." },
  ),
);

const named1 = (name: string, description: string): Schema =>
  D(name, obj({ name: tag(1, str({ description: "Name of the zone or node." })) }, { required: ["name"], description }));
export const forZone = named1("ForZone", "A zone that should consume the endpoint.");
export const forNode = named1("ForNode", "A node that should consume the endpoint.");

export const endpointHints = D(
  "EndpointHints",
  obj(
    {
      forZones: tag(1, list(forZone, { listType: "atomic", maxItems: 8, description: "Zones that should consume the endpoint (topology aware routing)." })),
      forNodes: tag(2, list(forNode, { listType: "atomic", maxItems: 8, description: "Nodes that should consume the endpoint." })),
    },
    { description: "How an endpoint should be consumed." },
  ),
);

export const endpoint = D(
  "Endpoint",
  obj(
    {
      addresses: tag(1, list(str(), { listType: "set", minItems: 1, maxItems: 100, description: "Addresses of the endpoint, of the slice's addressType." })),
      conditions: tag(2, withOpts(endpointConditions, { description: "Current condition of the endpoint." })),
      hostname: tag(3, format("dns1123-label", { description: "Host name of the endpoint (DNS names)." })),
      targetRef: tag(4, withOpts(objectReference, { description: "The object (usually a pod) behind the endpoint." })),
      deprecatedTopology: tag(5, mapOf(str(), { description: "Topology of the v1beta1 form; not writable through v1." })),
      nodeName: tag(6, str({ description: "Node hosting the endpoint." })),
      zone: tag(7, str({ description: "Zone of the endpoint." })),
      hints: tag(8, withOpts(endpointHints, { description: "Hints for consumers." })),
    },
    { required: ["addresses"], description: "One logical backend of a service." },
  ),
);

export const endpointPort = D(
  "EndpointPort",
  obj(
    {
      name: tag(1, str({ default: "", description: "Port name, unique in the slice; empty or a DNS label." })),
      protocol: tag(2, enumOf(["TCP", "UDP", "SCTP"], { default: "TCP", description: "IP protocol of the port." })),
      port: tag(3, int32({ description: "Port number; all ports when unset." })),
      appProtocol: tag(4, str({ description: "Application protocol (IANA service name or a domain-prefixed name)." })),
    },
    { mapType: "atomic", description: "A port of the endpoints of a slice." },
  ),
);

export const endpointSlice = D(
  "EndpointSlice",
  objectKind(
    {
      addressType: tag(4, enumOf(ADDRESS_TYPES, { immutable: true, description: "Type of all addresses in the slice. Immutable." })),
      endpoints: tag(2, list(endpoint, { listType: "atomic", maxItems: 1000, description: "Endpoints of the slice." })),
      ports: tag(3, list(endpointPort, { listType: "atomic", maxItems: 100, description: "Ports exposed by every endpoint of the slice." })),
    },
    { required: ["addressType", "endpoints"] },
  ),
);

function addressErrors(type: unknown, address: string): string[] {
  switch (type) {
    case "IPv4":
      return isIPv4(address) ? [] : ["must be a valid IPv4 address"];
    case "IPv6":
      return isIPv6(address) ? [] : ["must be a valid IPv6 address"];
    case "FQDN":
      return isDNS1123Subdomain(address);
    default:
      return [];
  }
}

export function validateEndpointSlice(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  listAt(o, "endpoints").forEach((ep, i) => {
    listAt(ep, "addresses").forEach((a, j) => {
      if (typeof a === "string") for (const msg of addressErrors(o.addressType, a)) errs.push(fieldErrors.invalid(`endpoints[${i}].addresses[${j}]`, a, msg));
    });
    const node = getPath(ep, "nodeName");
    if (typeof node === "string" && node !== "") {
      for (const msg of isDNS1123Subdomain(node)) errs.push(fieldErrors.invalid(`endpoints[${i}].nodeName`, node, msg));
    }
  });
  const names = new Set<string>();
  listAt(o, "ports").forEach((p, i) => {
    if (!isObj(p)) return;
    const name = typeof p.name === "string" ? p.name : "";
    if (name !== "") for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(`ports[${i}].name`, name, msg));
    if (names.has(name)) errs.push(fieldErrors.duplicate(`ports[${i}].name`, name));
    names.add(name);
    if (typeof p.port === "number") for (const msg of portNumErrors(p.port)) errs.push(fieldErrors.invalid(`ports[${i}].port`, p.port, msg));
  });
  return errs;
}

/** Up to three entries then `+ N more...`, `<unset>` when empty (the CLI's list cells). */
function listWithMore(all: string[]): string {
  if (all.length > 3) return `${all.slice(0, 3).join(",")} + ${all.length - 3} more...`;
  return all.length === 0 ? "<unset>" : all.join(",");
}

export const kinds: KindDefinition[] = [
  {
    group: "discovery",
    version: "v1",
    kind: "EndpointSlice",
    plural: "endpointslices",
    singular: "endpointslice",
    namespaced: true,
    schema: endpointSlice,
    protobuf: true,
    validateKind: validateEndpointSlice,
    tableColumns: [
      { name: "AddressType", type: "string", description: "Type of the addresses of the slice.", cell: (o) => String(o.addressType ?? "") },
      {
        name: "Ports",
        type: "string",
        description: "Ports of the slice.",
        cell: (o) => listWithMore(listAt(o, "ports").map((p) => (typeof getPath(p, "port") === "number" ? String(getPath(p, "port")) : typeof getPath(p, "name") === "string" ? String(getPath(p, "name")) : "*"))),
      },
      { name: "Endpoints", type: "string", description: "Addresses of the endpoints.", cell: (o) => listWithMore(listAt(o, "endpoints").flatMap((e) => listAt(e, "addresses").map(String))) },
      ageColumn,
    ],
  },
];
