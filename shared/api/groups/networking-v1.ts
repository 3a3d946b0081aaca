/**
 * networking/v1: Ingress, IngressClass (cluster-scoped) and NetworkPolicy; IPAddress and
 * ServiceCIDR live in networking-v1-service-cidr.ts.
 * Protobuf field numbers are the platform's (networking/v1 generated.proto).
 * `IngressRule.http` is the inlined `IngressRuleValue` (protobuf field 2 of
 * IngressRule holds a nested message with `http` = 1), so it carries no tag
 * here, like other inlined structs. Rules live in networking-v1-rules.ts.
 */
import { enumOf, int32, intOrString, list, named, obj, str, tag, withOpts } from "../../schema/build.ts";
import type { KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, formatLabelSelector, getPath, listAt } from "../table-cells.ts";
import { typedLocalObjectReference } from "./core-v1.ts";
import { labelSelector, objectKind } from "./meta-v1.ts";
import { defaultNetworkPolicy, validateIngress, validateIngressClass, validateNetworkPolicy } from "./networking-v1-rules.ts";
import { serviceCIDRKinds } from "./networking-v1-service-cidr.ts";

const N = (name: string, schema: Schema): Schema => named("networking", "v1", name, schema);
const d = (schema: Schema, description: string): Schema => withOpts(schema, { description });
const PROTOCOLS = ["TCP", "UDP", "SCTP"];

// ---------------------------------------------------------------- Ingress

export const serviceBackendPort = N(
  "ServiceBackendPort",
  obj(
    {
      name: tag(1, str({ description: "Name of the Service port; exclusive with number." })),
      number: tag(2, int32({ description: "Number of the Service port; exclusive with name." })),
    },
    { mapType: "atomic", description: "A port of the referenced Service." },
  ),
);

export const ingressServiceBackend = N(
  "IngressServiceBackend",
  obj(
    { name: tag(1, str({ description: "Service in the Ingress's namespace." })), port: tag(2, d(serviceBackendPort, "Port of the Service.")) },
    { required: ["name"], description: "A Service used as a backend." },
  ),
);

export const ingressBackend = N(
  "IngressBackend",
  obj(
    {
      service: tag(4, d(ingressServiceBackend, "A Service backend; exclusive with resource.")),
      resource: tag(3, d(typedLocalObjectReference, "Another resource in the Ingress's namespace; exclusive with service.")),
    },
    { description: "Where matching traffic is sent." },
  ),
);

export const PATH_TYPES = ["Exact", "Prefix", "ImplementationSpecific"];

export const httpIngressPath = N(
  "HTTPIngressPath",
  obj(
    {
      path: tag(1, str({ description: "Path matched against the request; must begin with '/' for Exact and Prefix." })),
      pathType: tag(3, enumOf(PATH_TYPES, { description: "How path is matched: Exact, Prefix or ImplementationSpecific." })),
      backend: tag(2, d(ingressBackend, "Where matching traffic is sent.")),
    },
    { required: ["pathType", "backend"], description: "A path and its backend." },
  ),
);

export const httpIngressRuleValue = N(
  "HTTPIngressRuleValue",
  obj(
    { paths: tag(1, list(httpIngressPath, { listType: "atomic", description: "Paths mapped to backends." })) },
    { required: ["paths"], description: "HTTP rules of a host." },
  ),
);

export const ingressRule = N(
  "IngressRule",
  obj(
    {
      host: tag(1, str({ description: "Fully qualified host name, or a wildcard (`*.example.com`); all hosts when unset." })),
      http: d(httpIngressRuleValue, "HTTP paths of the rule."),
    },
    { description: "Routing of the requests for a host." },
  ),
);

export const ingressTLS = N(
  "IngressTLS",
  obj(
    {
      hosts: tag(1, list(str(), { listType: "atomic", description: "Hosts covered by the certificate." })),
      secretName: tag(2, str({ description: "Secret holding the certificate and key for port 443." })),
    },
    { description: "TLS termination of an Ingress." },
  ),
);

export const ingressSpec = N(
  "IngressSpec",
  obj(
    {
      ingressClassName: tag(4, str({ description: "Name of the IngressClass that serves this Ingress." })),
      defaultBackend: tag(1, d(ingressBackend, "Backend of requests no rule matches.")),
      tls: tag(2, list(ingressTLS, { listType: "atomic", description: "TLS configuration." })),
      rules: tag(3, list(ingressRule, { listType: "atomic", description: "Host rules." })),
    },
    { description: "Desired state of an Ingress." },
  ),
);

export const ingressPortStatus = N(
  "IngressPortStatus",
  obj(
    {
      port: tag(1, int32({ description: "Port number." })),
      protocol: tag(2, enumOf(PROTOCOLS, { description: "Protocol of the port." })),
      error: tag(3, str({ maxLength: 316, description: "Problem with the port, as a CamelCase reason." })),
    },
    { required: ["port", "protocol"], description: "Status of a load-balancer port." },
  ),
);

export const ingressLoadBalancerIngress = N(
  "IngressLoadBalancerIngress",
  obj(
    {
      ip: tag(1, str({ description: "IP of an IP-based ingress point." })),
      hostname: tag(2, str({ description: "Host name of a DNS-based ingress point." })),
      ports: tag(4, list(ingressPortStatus, { listType: "atomic", description: "Ports of the ingress point." })),
    },
    { description: "A load-balancer ingress point." },
  ),
);

export const ingressStatus = N(
  "IngressStatus",
  obj(
    {
      loadBalancer: tag(
        1,
        N(
          "IngressLoadBalancerStatus",
          obj({ ingress: tag(1, list(ingressLoadBalancerIngress, { listType: "atomic", description: "Ingress points." })) }, { description: "Load-balancer status." }),
        ),
      ),
    },
    { description: "Observed state of an Ingress." },
  ),
);

export const ingress = N("Ingress", objectKind({ spec: tag(2, ingressSpec), status: tag(3, ingressStatus) }));

// ---------------------------------------------------------------- IngressClass

export const ingressClassParametersReference = N(
  "IngressClassParametersReference",
  obj(
    {
      apiGroup: tag(1, str({ description: "API group of the referent; the core group when unset." })),
      kind: tag(2, str({ description: "Kind of the referent." })),
      name: tag(3, str({ description: "Name of the referent." })),
      scope: tag(4, enumOf(["Cluster", "Namespace"], { default: "Cluster", description: "Whether the referent is cluster-scoped (default) or namespaced." })),
      namespace: tag(5, str({ description: "Namespace of the referent; required for scope Namespace, forbidden for Cluster." })),
    },
    { required: ["kind", "name"], description: "Reference to the controller's parameters." },
  ),
);

export const ingressClassSpec = N(
  "IngressClassSpec",
  obj(
    {
      controller: tag(1, str({ maxLength: 250, immutable: true, description: "Domain-prefixed path of the controller (`acme.io/ingress-controller`). Immutable." })),
      parameters: tag(2, d(ingressClassParametersReference, "Additional configuration of the controller.")),
    },
    { description: "The controller of a class of Ingresses." },
  ),
);

export const ingressClass = N("IngressClass", objectKind({ spec: tag(2, ingressClassSpec) }));

// ---------------------------------------------------------------- NetworkPolicy

export const networkPolicyPort = N(
  "NetworkPolicyPort",
  obj(
    {
      protocol: tag(1, enumOf(PROTOCOLS, { default: "TCP", description: "Protocol the traffic must use." })),
      port: tag(2, intOrString({ description: "Port number or name; all ports when unset." })),
      endPort: tag(3, int32({ description: "Last port of a range starting at port (numeric ports only)." })),
    },
    { description: "A port traffic is allowed on." },
  ),
);

export const ipBlock = N(
  "IPBlock",
  obj(
    {
      cidr: tag(1, str({ description: "CIDR of the block (`192.168.1.0/24`, `2001:db8::/64`)." })),
      except: tag(2, list(str(), { listType: "atomic", description: "CIDRs inside the block that are excluded." })),
    },
    { required: ["cidr"], description: "A block of IP addresses." },
  ),
);

export const networkPolicyPeer = N(
  "NetworkPolicyPeer",
  obj(
    {
      podSelector: tag(1, d(labelSelector, "Pods selected (in the namespaces of namespaceSelector, or the policy's own).")),
      namespaceSelector: tag(2, d(labelSelector, "Namespaces selected.")),
      ipBlock: tag(3, d(ipBlock, "An IP block; exclusive with the selectors.")),
    },
    { description: "A peer traffic is allowed to or from." },
  ),
);

const peers = (description: string): Schema => list(networkPolicyPeer, { listType: "atomic", description });
const ports = (): Schema => list(networkPolicyPort, { listType: "atomic", description: "Ports the rule allows; all ports when empty." });

export const networkPolicyIngressRule = N(
  "NetworkPolicyIngressRule",
  obj({ ports: tag(1, ports()), from: tag(2, peers("Sources allowed; all sources when empty.")) }, { description: "Incoming traffic allowed to the selected pods." }),
);

export const networkPolicyEgressRule = N(
  "NetworkPolicyEgressRule",
  obj({ ports: tag(1, ports()), to: tag(2, peers("Destinations allowed; all destinations when empty.")) }, { description: "Outgoing traffic allowed from the selected pods." }),
);

export const networkPolicySpec = N(
  "NetworkPolicySpec",
  obj(
    {
      podSelector: tag(1, withOpts(labelSelector, { default: {}, description: "Pods the policy applies to; empty selects all pods of the namespace." })),
      ingress: tag(2, list(networkPolicyIngressRule, { listType: "atomic", description: "Ingress rules." })),
      egress: tag(3, list(networkPolicyEgressRule, { listType: "atomic", description: "Egress rules." })),
      policyTypes: tag(
        4,
        list(enumOf(["Ingress", "Egress"]), {
          listType: "atomic",
          maxItems: 2,
          description: "Rule types the policy relates to; by default Ingress, plus Egress when egress rules exist.",
        }),
      ),
    },
    { description: "Desired behaviour of a NetworkPolicy." },
  ),
);

export const networkPolicy = N("NetworkPolicy", objectKind({ spec: tag(2, networkPolicySpec) }));

// ---------------------------------------------------------------- table cells

function ingressHosts(o: Record<string, unknown>): string {
  const rules = listAt(o, "spec.rules");
  const hosts: string[] = [];
  let more = false;
  for (const r of rules) {
    if (hosts.length === 3) more = true;
    const h = getPath(r, "host");
    if (!more && typeof h === "string" && h !== "") hosts.push(h);
  }
  if (hosts.length === 0) return "*";
  return more ? `${hosts.join(",")} + ${rules.length - 3} more...` : hosts.join(",");
}

function ingressAddress(o: Record<string, unknown>): string {
  const seen = new Set<string>();
  for (const i of listAt(o, "status.loadBalancer.ingress")) {
    const ip = getPath(i, "ip");
    const host = getPath(i, "hostname");
    if (typeof ip === "string" && ip !== "") seen.add(ip);
    else if (typeof host === "string" && host !== "") seen.add(host);
  }
  return [...seen].join(",");
}

function ingressClassParameters(o: Record<string, unknown>): string {
  const p = getPath(o, "spec.parameters");
  if (typeof p !== "object" || p === null) return "<none>";
  const group = getPath(p, "apiGroup");
  const kind = String(getPath(p, "kind") ?? "");
  return `${typeof group === "string" ? `${kind}.${group}` : kind}/${String(getPath(p, "name") ?? "")}`;
}

export const kinds: KindDefinition[] = [
  {
    group: "networking",
    version: "v1",
    kind: "Ingress",
    plural: "ingresses",
    singular: "ingress",
    namespaced: true,
    shortNames: ["ing"],
    subresources: ["status"],
    schema: ingress,
    protobuf: true,
    validateKind: validateIngress,
    tableColumns: [
      { name: "Class", type: "string", description: "The name of the IngressClass resource that should be used for additional configuration", cell: (o) => String(getPath(o, "spec.ingressClassName") ?? "<none>") },
      { name: "Hosts", type: "string", description: "Hosts that incoming requests are matched against before the ingress rule", cell: ingressHosts },
      { name: "Address", type: "string", description: "Address is a list containing ingress points for the load-balancer", cell: ingressAddress },
      { name: "Ports", type: "string", description: "Ports of TLS configurations that open", cell: (o) => (listAt(o, "spec.tls").length > 0 ? "80, 443" : "80") },
      ageColumn,
    ],
  },
  {
    group: "networking",
    version: "v1",
    kind: "IngressClass",
    plural: "ingressclasses",
    singular: "ingressclass",
    namespaced: false,
    schema: ingressClass,
    protobuf: true,
    validateKind: validateIngressClass,
    tableColumns: [
      { name: "Controller", type: "string", description: "Controller that is responsible for handling this class", cell: (o) => String(getPath(o, "spec.controller") ?? "") },
      { name: "Parameters", type: "string", description: "A reference to a resource with additional parameters", cell: ingressClassParameters },
      ageColumn,
    ],
  },
  {
    group: "networking",
    version: "v1",
    kind: "NetworkPolicy",
    plural: "networkpolicies",
    singular: "networkpolicy",
    namespaced: true,
    shortNames: ["netpol"],
    schema: networkPolicy,
    protobuf: true,
    defaulter: defaultNetworkPolicy,
    validateKind: validateNetworkPolicy,
    tableColumns: [
      { name: "Pod-Selector", type: "string", description: "Pods the policy applies to.", cell: (o) => formatLabelSelector(getPath(o, "spec.podSelector")) },
      ageColumn,
    ],
  },
  ...serviceCIDRKinds,
];
