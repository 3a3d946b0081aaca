/**
 * networking/v1 defaulting and cross-field validation (the platform's
 * `SetDefaults_NetworkPolicy`, `ValidateIngress*`, `ValidateNetworkPolicy`).
 */
import { fieldErrors } from "../../schema/field-errors.ts";
import { isDNS1123Subdomain, isIP, isIPv4 } from "../../schema/formats.ts";
import type { FieldError } from "../../schema/types.ts";
import { isObj, portNameErrors, portNumErrors, validateLabelSelector, type Obj } from "./workload-rules.ts";

// ---------------------------------------------------------------- NetworkPolicy

export function defaultNetworkPolicy(o: Obj): void {
  if (!isObj(o.spec)) o.spec = {};
  const spec = o.spec as Obj;
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
  }
}

/** Whether a string is a CIDR (`10.0.0.0/8`, `2001:db8::/64`). */
export function isCIDR(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!isIP(ip) || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (isIPv4(ip) ? 32 : 128);
}

function validatePort(port: unknown, path: string): FieldError[] {
  if (!isObj(port)) return [];
  const errs: FieldError[] = [];
  const p = port.port;
  if (typeof p === "number") {
    for (const msg of portNumErrors(p)) errs.push(fieldErrors.invalid(`${path}.port`, p, msg));
    if (typeof port.endPort === "number") {
      if (port.endPort < p) errs.push(fieldErrors.invalid(`${path}.endPort`, p, "must be greater than or equal to `port`"));
      for (const msg of portNumErrors(port.endPort)) errs.push(fieldErrors.invalid(`${path}.endPort`, port.endPort, msg));
    }
  } else if (typeof p === "string") {
    if (port.endPort != null) errs.push(fieldErrors.invalid(`${path}.endPort`, port.endPort, "may not be specified when `port` is non-numeric"));
    for (const msg of portNameErrors(p)) errs.push(fieldErrors.invalid(`${path}.port`, p, msg));
  } else if (port.endPort != null) {
    errs.push(fieldErrors.invalid(`${path}.endPort`, port.endPort, "may not be specified when `port` is not specified"));
  }
  return errs;
}

function validatePeer(peer: unknown, path: string): FieldError[] {
  if (!isObj(peer)) return [];
  const errs: FieldError[] = [];
  let count = 0;
  for (const sel of ["podSelector", "namespaceSelector"]) {
    if (peer[sel] != null) {
      count++;
      errs.push(...validateLabelSelector(peer[sel], `${path}.${sel}`));
    }
  }
  if (isObj(peer.ipBlock)) {
    count++;
    const cidr = peer.ipBlock.cidr;
    const msg = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
    if (typeof cidr === "string" && !isCIDR(cidr)) errs.push(fieldErrors.invalid(`${path}.ipBlock.cidr`, cidr, msg));
    const except = Array.isArray(peer.ipBlock.except) ? peer.ipBlock.except : [];
    except.forEach((e, i) => {
      if (typeof e === "string" && !isCIDR(e)) errs.push(fieldErrors.invalid(`${path}.ipBlock.except[${i}]`, e, msg));
    });
  }
  if (count === 0) errs.push(fieldErrors.required(path, "must specify a peer"));
  else if (count > 1 && peer.ipBlock != null) errs.push(fieldErrors.forbidden(path, "may not specify both ipBlock and another peer"));
  return errs;
}

function validateRules(rules: unknown, path: string, peerKey: "from" | "to"): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(rules) ? rules : []).forEach((rule, i) => {
    if (!isObj(rule)) return;
    const p = `${path}[${i}]`;
    (Array.isArray(rule.ports) ? rule.ports : []).forEach((port, j) => errs.push(...validatePort(port, `${p}.ports[${j}]`)));
    (Array.isArray(rule[peerKey]) ? rule[peerKey] : []).forEach((peer, j) => errs.push(...validatePeer(peer, `${p}.${peerKey}[${j}]`)));
  });
  return errs;
}

export function validateNetworkPolicy(o: Obj): FieldError[] {
  const spec = isObj(o.spec) ? o.spec : {};
  return [
    ...validateLabelSelector(spec.podSelector, "spec.podSelector"),
    ...validateRules(spec.ingress, "spec.ingress", "from"),
    ...validateRules(spec.egress, "spec.egress", "to"),
  ];
}

// ---------------------------------------------------------------- Ingress

const INVALID_PATH_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_PATH_SUFFIXES = ["/..", "/."];

function validateBackend(b: unknown, path: string): FieldError[] {
  if (!isObj(b)) return [];
  const errs: FieldError[] = [];
  const hasService = isObj(b.service);
  const hasResource = isObj(b.resource);
  if (hasService && hasResource) return [fieldErrors.invalid(path, "", "cannot set both resource and service backends")];
  if (!hasService && !hasResource) return [fieldErrors.invalid(path, "", "resource or service backend is required")];
  if (isObj(b.service)) {
    const port = isObj(b.service.port) ? b.service.port : {};
    const hasName = typeof port.name === "string" && port.name !== "";
    // A number of the wrong JSON type is the schema's error; it still counts as given here.
    const hasNumber = port.number != null && port.number !== 0;
    if (hasName && hasNumber) errs.push(fieldErrors.invalid(path, "", "cannot set both port name & port number"));
    else if (hasName) for (const msg of portNameErrors(String(port.name))) errs.push(fieldErrors.invalid(`${path}.service.port.name`, port.name, msg));
    else if (hasNumber) {
      if (typeof port.number === "number") for (const msg of portNumErrors(port.number)) errs.push(fieldErrors.invalid(`${path}.service.port.number`, port.number, msg));
    }
    else errs.push(fieldErrors.required(path, "port name or number is required"));
  }
  return errs;
}

function validatePath(p: unknown, path: string): FieldError[] {
  if (!isObj(p)) return [];
  const errs: FieldError[] = [];
  const value = typeof p.path === "string" ? p.path : "";
  if (p.pathType === "Exact" || p.pathType === "Prefix") {
    if (!value.startsWith("/")) errs.push(fieldErrors.invalid(`${path}.path`, value, "must be an absolute path"));
    for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(fieldErrors.invalid(`${path}.path`, value, `must not contain '${seq}'`));
    for (const suf of INVALID_PATH_SUFFIXES) if (value.endsWith(suf)) errs.push(fieldErrors.invalid(`${path}.path`, value, `cannot end with '${suf}'`));
  } else if (p.pathType === "ImplementationSpecific" && value !== "" && !value.startsWith("/")) {
    errs.push(fieldErrors.invalid(`${path}.path`, value, "must be an absolute path"));
  }
  errs.push(...validateBackend(p.backend, `${path}.backend`));
  return errs;
}

function validateHost(host: string, path: string): FieldError[] {
  if (isIP(host)) return [fieldErrors.invalid(path, host, "must be a DNS name, not an IP address")];
  const name = host.startsWith("*.") ? host.slice(2) : host;
  const details = host.startsWith("*.") && !name.includes(".") ? ["a wildcard DNS-1123 subdomain must start with '*.'"] : isDNS1123Subdomain(name);
  return details.map((msg) => fieldErrors.invalid(path, host, msg));
}

export function validateIngress(o: Obj): FieldError[] {
  const spec = isObj(o.spec) ? o.spec : {};
  const errs: FieldError[] = [];
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  if (!isObj(spec.defaultBackend) && rules.length === 0) {
    errs.push(fieldErrors.invalid("spec", spec, "either `defaultBackend` or `rules` must be specified"));
  }
  errs.push(...validateBackend(spec.defaultBackend, "spec.defaultBackend"));
  rules.forEach((rule, i) => {
    if (!isObj(rule)) return;
    const p = `spec.rules[${i}]`;
    if (typeof rule.host === "string" && rule.host !== "") errs.push(...validateHost(rule.host, `${p}.host`));
    const paths = isObj(rule.http) && Array.isArray(rule.http.paths) ? rule.http.paths : [];
    paths.forEach((hp, j) => errs.push(...validatePath(hp, `${p}.http.paths[${j}]`)));
  });
  return errs;
}

// ---------------------------------------------------------------- IngressClass

export function validateIngressClass(o: Obj): FieldError[] {
  const spec = isObj(o.spec) ? o.spec : {};
  const errs: FieldError[] = [];
  const controller = spec.controller;
  if (controller === undefined || controller === "") errs.push(fieldErrors.required("spec.controller"));
  else if (typeof controller === "string") {
    const slash = controller.indexOf("/");
    const domain = slash > 0 ? controller.slice(0, slash) : "";
    if (!domain || isDNS1123Subdomain(domain).length > 0 || slash === controller.length - 1) {
      errs.push(fieldErrors.invalid("spec.controller", controller, 'must be a domain-prefixed path (such as "acme.io/foo")'));
    }
  }
  const params = isObj(spec.parameters) ? spec.parameters : undefined;
  if (params) {
    const ns = params.namespace;
    if (params.scope === "Namespace" && (ns === undefined || ns === "")) {
      errs.push(fieldErrors.required("spec.parameters.namespace", "`parameters.scope` is set to 'Namespace'"));
    }
    if (params.scope === "Cluster" && ns !== undefined && ns !== "") {
      errs.push(fieldErrors.forbidden("spec.parameters.namespace", "`parameters.scope` is set to 'Cluster'"));
    }
    if (typeof params.apiGroup === "string" && params.apiGroup !== "") {
      for (const msg of isDNS1123Subdomain(params.apiGroup)) errs.push(fieldErrors.invalid("spec.parameters.apiGroup", params.apiGroup, msg));
    }
    if (typeof params.kind === "string" && params.kind.includes("/")) {
      errs.push(fieldErrors.invalid("spec.parameters.kind", params.kind, "may not contain '/'"));
    }
  }
  return errs;
}
