/**
 * networking/v1 IPAddress and ServiceCIDR (cluster-scoped, the MultiCIDRServiceAllocator
 * kinds). Protobuf field numbers are the platform's (networking/v1 generated.proto).
 * As on the platform: an IPAddress is named by its IP in canonical form and its
 * `spec.parentRef` (group, resource, namespace, name) is required and immutable; a
 * ServiceCIDR holds one or two CIDRs (one per family, strict canonical form), which
 * cannot change except that a single-family one may gain the other family.
 * Its status (the Ready condition) is written by the server.
 */
import { list, named, obj, str, tag, withOpts } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { isDNS1123Subdomain, isPathSegmentName } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath, listAt } from "../table-cells.ts";
import { cidrErrors, ipErrors, parseCidrText } from "./ip-text.ts";
import { condition, objectKind } from "./meta-v1.ts";
import { isObj, type Obj } from "./workload-rules.ts";

const N = (name: string, schema: Schema): Schema => named("networking", "v1", name, schema);

export const parentReference = N(
  "ParentReference",
  obj(
    {
      group: tag(1, str({ description: "Group of the referenced object; empty for the core group." })),
      resource: tag(2, str({ description: "Resource of the referenced object." })),
      namespace: tag(3, str({ description: "Namespace of the referenced object; empty when cluster-scoped." })),
      name: tag(4, str({ description: "Name of the referenced object." })),
    },
    { required: ["resource", "name"], description: "The object an IPAddress is allocated to." },
  ),
);

export const ipAddressSpec = N(
  "IPAddressSpec",
  obj({ parentRef: tag(1, withOpts(parentReference, { immutable: true })) }, { required: ["parentRef"], description: "The object an IP address belongs to. Immutable." }),
);

export const ipAddress = N("IPAddress", objectKind({ spec: tag(2, ipAddressSpec) }));

export const serviceCIDRSpec = N(
  "ServiceCIDRSpec",
  obj(
    {
      cidrs: tag(1, list(str(), { listType: "atomic", description: "The IP blocks (`192.168.0.0/24`, `2001:db8::/64`) Service cluster IPs are assigned from; at most one per IP family." })),
    },
    { description: "The CIDRs of a ServiceCIDR." },
  ),
);

export const serviceCIDRStatus = N(
  "ServiceCIDRStatus",
  obj({ conditions: tag(1, list(condition, { listType: "map", mapKeys: ["type"], description: "Conditions of the ServiceCIDR (Ready)." })) }, { description: "Observed state of a ServiceCIDR." }),
);

export const serviceCIDR = N("ServiceCIDR", objectKind({ spec: tag(2, serviceCIDRSpec), status: tag(3, serviceCIDRStatus) }));

// ---------------------------------------------------------------- validation

/** metadata.name of an IPAddress: the IP in canonical form. */
export function validateIPAddressName(name: string): FieldError[] {
  return ipErrors(name).map((msg) => fieldErrors.invalid("metadata.name", name, msg));
}

function pathSegment(path: string, value: string): FieldError[] {
  return isPathSegmentName(value).map((msg) => fieldErrors.invalid(path, value, msg));
}

export function validateIPAddress(o: Obj): FieldError[] {
  const name = isObj(o.metadata) && typeof o.metadata.name === "string" ? o.metadata.name : "";
  const errs = name === "" ? [] : validateIPAddressName(name);
  const spec = isObj(o.spec) ? o.spec : {};
  if (!isObj(spec.parentRef)) return [...errs, fieldErrors.required("spec.parentRef", "")];
  const ref = spec.parentRef;
  const text = (v: unknown): string => (typeof v === "string" ? v : "");
  const group = text(ref.group);
  if (group !== "") errs.push(...isDNS1123Subdomain(group).map((msg) => fieldErrors.invalid("spec.parentRef.group", group, msg)));
  for (const field of ["resource", "name"] as const) {
    const v = text(ref[field]);
    if (v === "") errs.push(fieldErrors.required(`spec.parentRef.${field}`, ""));
    else errs.push(...pathSegment(`spec.parentRef.${field}`, v));
  }
  const namespace = text(ref.namespace);
  if (namespace !== "") errs.push(...pathSegment("spec.parentRef.namespace", namespace));
  return errs;
}

function cidrsOf(o: Obj): unknown[] {
  return isObj(o.spec) && Array.isArray(o.spec.cidrs) ? o.spec.cidrs : [];
}

/** A Go `%#v` rendering of a string list, as the platform prints such bad values. */
const goStrings = (values: unknown[]): string => `[]string{${values.map((v) => JSON.stringify(String(v))).join(", ")}}`;

function goInvalid(field: string, value: unknown[], shown: string, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, value, message: `Invalid value: ${shown}: ${detail}` };
}

function validateCidrList(cidrs: unknown[]): FieldError[] {
  const path = "spec.cidrs";
  if (cidrs.length === 0) return [fieldErrors.required(path, "at least one CIDR required")];
  if (cidrs.length > 2) return [goInvalid(path, cidrs, `networking.ServiceCIDRSpec{CIDRs:${goStrings(cidrs)}}`, "may only hold up to 2 values")];
  const errs: FieldError[] = [];
  cidrs.forEach((c, i) => {
    for (const msg of cidrErrors(String(c))) errs.push(fieldErrors.invalid(`${path}[${i}]`, c, msg));
  });
  if (cidrs.length === 2) {
    const [a, b] = cidrs.map((c) => parseCidrText(String(c))?.family);
    if (a && a === b) errs.push(goInvalid(path, cidrs, goStrings(cidrs), "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"));
  }
  return errs;
}

export function validateServiceCIDR(o: Obj): FieldError[] {
  return validateCidrList(cidrsOf(o));
}

/** An update keeps every CIDR; a single-family ServiceCIDR may add the other family. */
export function validateServiceCIDRUpdate(next: Obj, old: Obj): FieldError[] {
  const now = cidrsOf(next);
  const before = cidrsOf(old);
  const immutable = (field: string, value: unknown): FieldError => fieldErrors.invalid(field, value, "field is immutable");
  if (now.length === before.length) return before.flatMap((c, i) => (c === now[i] ? [] : [immutable(`spec.cidrs[${i}]`, now[i])]));
  if (before.length === 1 && now.length === 2) return [...(now[0] === before[0] ? [] : [immutable("spec.cidrs[0]", now[0])]), ...validateCidrList(now)];
  return [goInvalid("spec.cidrs", now, goStrings(now), "field is immutable")];
}

// ---------------------------------------------------------------- table cells

/** `resource[.group]/[namespace/]name`, as the platform prints a parent reference. */
function parentRefCell(o: Obj): string {
  const ref = getPath(o, "spec.parentRef");
  if (!isObj(ref)) return "<none>";
  const group = typeof ref.group === "string" ? ref.group : "";
  const resource = typeof ref.resource === "string" ? ref.resource : "";
  let out = (group === "" ? resource : `${resource}.${group}`).toLowerCase();
  if (typeof ref.namespace === "string" && ref.namespace !== "") out += `/${ref.namespace}`;
  return `${out}/${typeof ref.name === "string" ? ref.name : ""}`;
}

export const serviceCIDRKinds: KindDefinition[] = [
  {
    group: "networking",
    version: "v1",
    kind: "IPAddress",
    plural: "ipaddresses",
    singular: "ipaddress",
    namespaced: false,
    schema: ipAddress,
    protobuf: true,
    // The IP rules replace the subdomain rule (an IPv6 name has colons); validateIPAddress checks it.
    nameFormat: "path-segment-name",
    validateKind: validateIPAddress,
    tableColumns: [{ name: "ParentRef", type: "string", description: "ParentRef references the resource that an IPAddress is attached to.", cell: parentRefCell }],
  },
  {
    group: "networking",
    version: "v1",
    kind: "ServiceCIDR",
    plural: "servicecidrs",
    singular: "servicecidr",
    namespaced: false,
    subresources: ["status"],
    schema: serviceCIDR,
    protobuf: true,
    validateKind: validateServiceCIDR,
    tableColumns: [{ name: "CIDRs", type: "string", description: "CIDRs defines the IP blocks from which to assign Service cluster IPs.", cell: (o) => listAt(o, "spec.cidrs").map(String).join(",") }, ageColumn],
  },
];
