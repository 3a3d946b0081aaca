/**
 * apiregistration/v1: APIService, the registration of a group version with the
 * aggregation layer. A "local" APIService (no `spec.service`) is served by the apiserver
 * itself; one with a service is proxied to it. The name is `<version>.<group>`; status
 * holds the `Available` condition kept by the aggregator. Validation and the table
 * columns (NAME, SERVICE, AVAILABLE, AGE) are the platform's; protobuf field numbers
 * are those of apiregistration/v1 generated.proto.
 */
import { bool, bytes, enumOf, int32, list, named, obj, str, tag, time } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { isDNS1123Subdomain } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { isDNS1035Label } from "../field-errors.ts";
import { ageColumn } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { isObj, type Obj } from "./workload-rules.ts";

const R = (name: string, schema: Schema): Schema => named("apiregistration", "v1", name, schema);

export const serviceReference = R(
  "ServiceReference",
  obj({
    namespace: tag(1, str({ description: "Namespace of the service." })),
    name: tag(2, str({ description: "Name of the service." })),
    port: tag(3, int32({ default: 443, description: "Port on the service hosting the API (1-65535, default 443)." })),
  }),
);

export const apiServiceSpec = R(
  "APIServiceSpec",
  obj(
    {
      service: tag(1, serviceReference),
      group: tag(2, str({ description: "API group name this server hosts." })),
      version: tag(3, str({ description: "API version this server hosts." })),
      insecureSkipTLSVerify: tag(4, bool({ description: "Disables TLS certificate verification when talking to this server (strongly discouraged)." })),
      caBundle: tag(5, bytes({ description: "PEM CA bundle used to validate the API server's serving certificate." })),
      groupPriorityMinimum: tag(7, int32({ description: "Priority of the group (higher first); the group's priority is the highest of its APIServices." })),
      versionPriority: tag(8, int32({ description: "Order of this version within its group (higher first)." })),
    },
    { required: ["groupPriorityMinimum", "versionPriority"] },
  ),
);

export const apiServiceCondition = R(
  "APIServiceCondition",
  obj(
    {
      type: tag(1, str({ description: "Type of the condition: Available." })),
      status: tag(2, enumOf(["True", "False", "Unknown"])),
      lastTransitionTime: tag(3, time()),
      reason: tag(4, str({ description: "CamelCase reason of the last transition." })),
      message: tag(5, str({ description: "Human-readable details of the last transition." })),
    },
    { required: ["type", "status"] },
  ),
);

export const apiServiceStatus = R("APIServiceStatus", obj({ conditions: tag(1, list(apiServiceCondition, { listType: "map", mapKeys: ["type"] })) }));

export const apiServiceSchema = R("APIService", objectKind({ spec: tag(2, apiServiceSpec), status: tag(3, apiServiceStatus) }));

const str0 = (v: unknown): string => (typeof v === "string" ? v : "");
const num0 = (v: unknown): number => (typeof v === "number" ? v : 0);

/** The platform's APIService validation (name `<version>.<group>`, priorities, service, TLS settings). */
export function validateAPIService(o: Obj): FieldError[] {
  const spec = isObj(o.spec) ? o.spec : {};
  const meta = isObj(o.metadata) ? o.metadata : {};
  const errs: FieldError[] = [];
  const group = str0(spec.group);
  const version = str0(spec.version);
  const required = `${version}.${group}`;
  const name = str0(meta.name);
  if (name !== "" && name !== required) errs.push(fieldErrors.invalid("metadata.name", name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  if (group === "" && version !== "v1") errs.push(fieldErrors.required("spec.group", "only v1 may have an empty group and it better be legacy kube"));
  if (group !== "") for (const m of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid("spec.group", group, m));
  for (const m of isDNS1035Label(version)) errs.push(fieldErrors.invalid("spec.version", version, m));
  const gpm = num0(spec.groupPriorityMinimum);
  if (gpm <= 0 || gpm > 20000) errs.push(fieldErrors.invalid("spec.groupPriorityMinimum", gpm, "must be positive and less than 20000"));
  const vp = num0(spec.versionPriority);
  if (vp <= 0 || vp > 1000) errs.push(fieldErrors.invalid("spec.versionPriority", vp, "must be positive and less than 1000"));
  const caBundle = str0(spec.caBundle);
  const caBytes = Buffer.from(caBundle, "base64").length;
  if (!isObj(spec.service)) {
    if (caBytes !== 0) errs.push(fieldErrors.invalid("spec.caBundle", `${caBytes} bytes`, "local APIServices may not have a caBundle"));
    if (spec.insecureSkipTLSVerify === true) errs.push(fieldErrors.invalid("spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify"));
    return errs;
  }
  const svc = spec.service;
  if (str0(svc.namespace) === "") errs.push(fieldErrors.required("spec.service.namespace", ""));
  if (str0(svc.name) === "") errs.push(fieldErrors.required("spec.service.name", ""));
  const port = svc.port === undefined ? 443 : num0(svc.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(fieldErrors.invalid("spec.service.port", port, "must be between 1 and 65535, inclusive"));
  if (spec.insecureSkipTLSVerify === true && caBytes > 0) errs.push(fieldErrors.invalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"));
  return errs;
}

function serviceCell(o: Obj): string {
  const svc = isObj(o.spec) && isObj(o.spec.service) ? o.spec.service : undefined;
  return svc ? `${str0(svc.namespace)}/${str0(svc.name)}` : "Local";
}

function availableCell(o: Obj): string {
  const conditions = isObj(o.status) && Array.isArray(o.status.conditions) ? o.status.conditions : [];
  const c = conditions.find((x): x is Obj => isObj(x) && x.type === "Available");
  if (!c) return "Unknown";
  const status = str0(c.status);
  return status === "True" || !str0(c.reason) ? status : `${status} (${str0(c.reason)})`;
}

export const kinds: KindDefinition[] = [
  {
    group: "apiregistration",
    version: "v1",
    kind: "APIService",
    plural: "apiservices",
    singular: "apiservice",
    namespaced: false,
    // `v1.` names the core group's APIService: a path segment, not a DNS subdomain.
    nameFormat: "path-segment-name",
    categories: ["api-extensions"],
    subresources: ["status"],
    protobuf: true,
    schema: apiServiceSchema,
    validateKind: validateAPIService,
    tableColumns: [
      { name: "Service", type: "string", description: "The service backing the group version, or Local.", cell: serviceCell },
      { name: "Available", type: "string", description: "The Available condition (with its reason when not True).", cell: availableCell },
      ageColumn,
    ],
  },
];
