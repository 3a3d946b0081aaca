/**
 * certificates/v1: CertificateSigningRequest (cluster-scoped, `csr`), with the
 * `status` and `approval` subresources.
 *
 * Nothing here depends on the naming profile, so the module exports a constant
 * `kinds`. The rule that the platform's `legacy-unknown` signer cannot be used
 * on create needs a profile name and the create/update distinction, so it
 * belongs to the create strategy, not to this file.
 *
 * `spec` is immutable after creation; `spec.username`, `uid`, `groups` and
 * `extra` are written by the server from the requesting user. Protobuf field
 * numbers are the platform's (certificates/v1 generated.proto).
 */
import { bytes, enumOf, int32, list, mapOf, named, obj, str, tag, time, withOpts } from "../../schema/build.ts";
import { DNS1123_SUBDOMAIN_MAX_LENGTH, isBase64, isDNS1123Label, isDNS1123Subdomain } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema, TableColumn } from "../../schema/types.ts";
import { duplicate, invalid, isObj, listField, notSupported, objField, strField, tooLong } from "../field-errors.ts";
import { ageColumn, humanDuration, listAt, strAt } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";

const C = (name: string, schema: Schema) => named("certificates", "v1", name, schema);

/** Key usages and extended key usages a request may ask for. */
export const KEY_USAGES = [
  "signing",
  "digital signature",
  "content commitment",
  "key encipherment",
  "key agreement",
  "data encipherment",
  "cert sign",
  "crl sign",
  "encipher only",
  "decipher only",
  "any",
  "server auth",
  "client auth",
  "code signing",
  "email protection",
  "s/mime",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "timestamping",
  "ocsp signing",
  "microsoft sgc",
  "netscape sgc",
];

/** Condition types with a meaning to the platform; each may appear once and only with status True. */
export const CSR_CONDITION_TYPES = ["Approved", "Denied", "Failed"];
export const MIN_EXPIRATION_SECONDS = 600;

export const csrSpec = C(
  "CertificateSigningRequestSpec",
  obj(
    {
      request: tag(1, bytes({ description: "A PEM `CERTIFICATE REQUEST` block (base64 again in JSON and YAML)." })),
      signerName: tag(7, str({ description: "The signer asked to issue the certificate, a qualified name `example.com/signer`." })),
      expirationSeconds: tag(
        8,
        int32({ minimum: MIN_EXPIRATION_SECONDS, description: "Requested validity in seconds (at least 600); the signer may issue a shorter one." }),
      ),
      usages: tag(5, list(enumOf(KEY_USAGES), { listType: "atomic", description: "Key usages requested in the certificate." })),
      username: tag(2, str({ readOnly: true, description: "The requesting user; set by the server." })),
      uid: tag(3, str({ readOnly: true, description: "UID of the requesting user; set by the server." })),
      groups: tag(4, list(str(), { listType: "atomic", readOnly: true, description: "Groups of the requesting user; set by the server." })),
      extra: tag(6, mapOf(list(str(), { listType: "atomic" }), { readOnly: true, description: "Extra attributes of the requesting user; set by the server." })),
    },
    { required: ["request", "signerName", "usages"] },
  ),
);

export const csrCondition = C(
  "CertificateSigningRequestCondition",
  obj(
    {
      type: tag(1, str({ description: "Approved, Denied, Failed, or a custom type." })),
      status: tag(6, enumOf(["True", "False", "Unknown"])),
      reason: tag(2, str()),
      message: tag(3, str()),
      lastUpdateTime: tag(4, time()),
      lastTransitionTime: tag(5, time({ description: "Defaulted by the server when the condition is added or its status changes." })),
    },
    { required: ["type", "status"] },
  ),
);

export const csrStatus = C(
  "CertificateSigningRequestStatus",
  obj({
    conditions: tag(1, list(csrCondition, { listType: "map", mapKeys: ["type"], description: "Approved and Denied are added through `approval`, Failed through `status`." })),
    certificate: tag(2, bytes({ description: "The issued certificate as PEM CERTIFICATE blocks; immutable once set." })),
  }),
);

export const csrSchema = objectKind(
  {
    spec: tag(2, withOpts(csrSpec, { immutable: true })),
    status: tag(3, csrStatus),
  },
  { required: ["spec"] },
);

// ---- table -------------------------------------------------------------------

/** The CLI's condition summary: Denied, Approved or Pending, then `,Failed` and `,Issued`. */
export function csrConditionSummary(csr: Record<string, unknown>): string {
  const types = new Set(listAt(csr, "status.conditions").map((c) => strAt(c, "type")));
  let out = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) out += ",Failed";
  if (strAt(csr, "status.certificate") !== "") out += ",Issued";
  return out;
}

const csrColumns: TableColumn[] = [
  ageColumn,
  { name: "SignerName", type: "string", description: "The requested signer.", cell: (o) => strAt(o, "spec.signerName") || "<none>" },
  { name: "Requestor", type: "string", description: "The user who created the request.", cell: (o) => strAt(o, "spec.username") },
  {
    name: "RequestedDuration",
    type: "string",
    description: "The requested validity of the certificate.",
    cell: (o) => {
      const s = objField(o, "spec")?.expirationSeconds;
      return typeof s === "number" ? humanDuration(s * 1000) : "<none>";
    },
  },
  { name: "Condition", type: "string", description: "Approval and issuance state.", cell: (o) => csrConditionSummary(o) },
];

// ---- validation beyond the schema -----------------------------------------

/** The platform's signer name rule: `<domain with a dot>/<path of DNS subdomains>`. */
export function validateSignerName(field: string, signerName: string): FieldError[] {
  const errs: FieldError[] = [];
  const segments = signerName.split("/");
  if (segments.length !== 2) {
    return [invalid(field, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, path] = segments;
  if (domain.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(tooLong(field, DNS1123_SUBDOMAIN_MAX_LENGTH));
  const labels = domain.split(".");
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length > 0) {
      for (const m of msgs) errs.push(invalid(field, domain, `validating label ${JSON.stringify(label)}: ${m}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(invalid(field, domain, "should be a domain with at least two segments separated by dots"));
  for (const part of path.split("/")) {
    const msgs = isDNS1123Subdomain(part);
    if (msgs.length > 0) {
      for (const m of msgs) errs.push(invalid(field, path, `validating component ${JSON.stringify(part)}: ${m}`));
      break;
    }
  }
  const maxPath = DNS1123_SUBDOMAIN_MAX_LENGTH - domain.length - 1;
  if (path.length > maxPath) errs.push(tooLong(field, maxPath));
  return errs;
}

/** PEM block labels in a document, in order. */
function pemLabels(text: string): string[] {
  return [...text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----/g)].map((m) => m[1]);
}

/** Decoded bytes of a base64 field; undefined when absent or not base64 (the schema's `byte` format reports that). */
function decodeBase64(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "" || !isBase64(value)) return undefined;
  return Buffer.from(value, "base64").toString("latin1");
}

function validateCSR(obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objField(obj, "spec");
  const signerName = strField(spec, "signerName");
  if (signerName !== "") errs.push(...validateSignerName("spec.signerName", signerName));

  const request = decodeBase64(spec?.request);
  if (request !== undefined) {
    const labels = pemLabels(request);
    if (labels[0] !== "CERTIFICATE REQUEST") errs.push(invalid("spec.request", spec?.request, "PEM block type must be CERTIFICATE REQUEST"));
  }

  const seen = new Set<string>();
  listField(spec, "usages").forEach((u, i) => {
    if (typeof u !== "string") return;
    if (seen.has(u)) errs.push(duplicate(`spec.usages[${i}]`, u));
    seen.add(u);
  });

  const conditions = listField(objField(obj, "status"), "conditions");
  const types = new Set<string>();
  conditions.forEach((c, i) => {
    if (!isObj(c) || typeof c.type !== "string") return;
    types.add(c.type);
    if (CSR_CONDITION_TYPES.includes(c.type) && typeof c.status === "string" && c.status !== "True") {
      errs.push(notSupported(`status.conditions[${i}].status`, c.status, ["True"]));
    }
  });
  if (types.has("Approved") && types.has("Denied")) {
    errs.push(invalid("status.conditions", conditions, "Approved and Denied conditions are mutually exclusive"));
  }

  const certificate = decodeBase64(objField(obj, "status")?.certificate);
  if (certificate !== undefined) {
    const labels = pemLabels(certificate);
    if (labels.length === 0) errs.push(invalid("status.certificate", "<certificate data>", "must contain at least one CERTIFICATE PEM block"));
    else {
      const other = labels.find((l) => l !== "CERTIFICATE");
      if (other !== undefined) errs.push(invalid("status.certificate", "<certificate data>", `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(other)}`));
    }
  }
  return errs;
}

export const kinds: KindDefinition[] = [
  {
    group: "certificates",
    version: "v1",
    kind: "CertificateSigningRequest",
    plural: "certificatesigningrequests",
    singular: "certificatesigningrequest",
    namespaced: false,
    shortNames: ["csr"],
    subresources: ["status", "approval"],
    selectableFields: ["spec.signerName"],
    protobuf: true,
    schema: csrSchema,
    tableColumns: csrColumns,
    validateKind: validateCSR,
  },
];
