/**
 * apiextensions/v1 defaulting and validation beyond the schema, as the
 * platform's `SetDefaults_CustomResourceDefinition` and
 * `ValidateCustomResourceDefinition` do it: names, versions, the structural
 * rules of each version's OpenAPI schema (walked along the value, depth-guarded),
 * conversion webhooks. Defaulters mutate in place and are idempotent;
 * validators never throw.
 */
import type { ExtensionNames } from "../../platform/index.ts";
import { isDNS1123Subdomain } from "../../schema/formats.ts";
import type { FieldError } from "../../schema/types.ts";
import { forbidden, has, invalid, isDNS1035Label, isObj, listField, notSupported, objField, required, strField, strList } from "../field-errors.ts";
import { validateWebhookClientConfig } from "../webhook-client.ts";

export const PRINTER_COLUMN_FORMATS = ["int32", "int64", "float", "double", "byte", "date", "date-time", "password"];
export const ACCEPTED_CONVERSION_REVIEW_VERSIONS = ["v1", "v1beta1"];

// ---- defaulting ------------------------------------------------------------------

export function defaultCRD(obj: Record<string, unknown>): void {
  const spec = objField(obj, "spec");
  if (!spec) return;
  const n = objField(spec, "names");
  if (n) {
    const kind = strField(n, "kind");
    if (strField(n, "singular") === "") n.singular = kind.toLowerCase();
    if (strField(n, "listKind") === "" && kind !== "") n.listKind = `${kind}List`;
  }
  // `conversion` defaults to `{strategy: None}` through the schema's default.
  const status = objField(obj, "status");
  if (status && strList(status, "storedVersions").length > 0) return;
  const storage = listField(spec, "versions").find((v) => isObj(v) && v.storage === true);
  if (isObj(storage) && typeof storage.name === "string") {
    const st = status ?? {};
    st.storedVersions = [storage.name];
    obj.status = st;
  }
}

// ---- validation beyond the schema --------------------------------------------------

type Level = "root" | "field" | "item";

/** The structural rules of a CRD schema that a typed schema cannot state. Walks the value; depth-guarded. */
function validateStructural(node: unknown, p: string, level: Level, ext: ExtensionNames, depth: number, errs: FieldError[]): void {
  if (!isObj(node) || depth > 256) return;
  const type = strField(node, "type");
  const preserve = node[ext.preserveUnknownFields];
  if (preserve === false) errs.push(invalid(`${p}.${ext.preserveUnknownFields}`, false, "must be true or undefined"));
  const exempt = node[ext.embeddedResource] === true || node[ext.intOrString] === true || (level !== "root" && preserve === true);
  if (type === "" && !exempt) {
    const detail = level === "root" ? "must not be empty at the root" : level === "item" ? "must not be empty for specified array items" : "must not be empty for specified object fields";
    errs.push(required(`${p}.type`, detail));
  }
  if (level === "root" && type !== "" && type !== "object") errs.push(invalid(`${p}.type`, type, "must be object at the root"));
  const props = objField(node, "properties");
  if (props && has(node, "additionalProperties")) {
    const ap = node.additionalProperties;
    if (ap === false || isObj(ap)) errs.push(forbidden(`${p}.additionalProperties`, "additionalProperties and properties are mutual exclusive"));
  }
  if (props) for (const [k, v] of Object.entries(props)) validateStructural(v, `${p}.properties[${k}]`, "field", ext, depth + 1, errs);
  if (isObj(node.additionalProperties)) validateStructural(node.additionalProperties, `${p}.additionalProperties`, "field", ext, depth + 1, errs);
  if (isObj(node.items)) validateStructural(node.items, `${p}.items`, "item", ext, depth + 1, errs);
}

function validateReviewVersions(versions: unknown, field: string): FieldError[] {
  if (!Array.isArray(versions)) return [];
  const given = versions.filter((v): v is string => typeof v === "string");
  if (given.length === 0) return [required(field, `must specify one of ${ACCEPTED_CONVERSION_REVIEW_VERSIONS.join(", ")}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  given.forEach((v, i) => {
    if (seen.has(v)) errs.push(invalid(`${field}[${i}]`, v, "duplicate version"));
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(invalid(`${field}[${i}]`, v, m));
  });
  if (!given.some((v) => ACCEPTED_CONVERSION_REVIEW_VERSIONS.includes(v))) {
    errs.push(invalid(field, given, `must include at least one of ${ACCEPTED_CONVERSION_REVIEW_VERSIONS.join(", ")}`));
  }
  return errs;
}

function validateNames(n: Record<string, unknown>, p: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of ["plural", "singular"]) {
    const v = strField(n, k);
    if (v !== "") for (const m of isDNS1035Label(v)) errs.push(invalid(`${p}.${k}`, v, m));
  }
  const kind = strField(n, "kind");
  const listKind = strField(n, "listKind");
  for (const [k, v] of [["kind", kind], ["listKind", listKind]] as const) {
    if (v === "") continue;
    const msgs = isDNS1035Label(v.toLowerCase());
    if (msgs.length > 0) errs.push(invalid(`${p}.${k}`, v, `may have mixed case, but should otherwise match: ${msgs.join(",")}`));
  }
  if (kind !== "" && kind === listKind) errs.push(invalid(`${p}.listKind`, listKind, "kind and listKind may not be the same or listKind must be different"));
  for (const k of ["shortNames", "categories"]) {
    strList(n, k).forEach((v, i) => {
      for (const m of isDNS1035Label(v)) errs.push(invalid(`${p}.${k}[${i}]`, v, m));
    });
  }
  return errs;
}

function validateVersion(v: Record<string, unknown>, p: string, ext: ExtensionNames): FieldError[] {
  const errs: FieldError[] = [];
  const name = strField(v, "name");
  if (name !== "") for (const m of isDNS1035Label(name)) errs.push(invalid(`${p}.name`, name, m));
  if (v.deprecated !== true && has(v, "deprecationWarning")) {
    errs.push(invalid(`${p}.deprecationWarning`, v.deprecationWarning, "can only be set for deprecated versions"));
  } else if (strField(v, "deprecationWarning").length > 256) {
    errs.push(invalid(`${p}.deprecationWarning`, v.deprecationWarning, "must be <= 256 characters long"));
  }
  const schema = objField(objField(v, "schema"), "openAPIV3Schema");
  if (!schema) errs.push(required(`${p}.schema.openAPIV3Schema`, "schemas are required"));
  else validateStructural(schema, `${p}.schema.openAPIV3Schema`, "root", ext, 0, errs);
  const scale = objField(objField(v, "subresources"), "scale");
  if (scale) {
    const sp = strField(scale, "specReplicasPath");
    const stp = strField(scale, "statusReplicasPath");
    const lsp = strField(scale, "labelSelectorPath");
    if (sp !== "" && !sp.startsWith(".spec.")) errs.push(invalid(`${p}.subresources.scale.specReplicasPath`, sp, "should be a json path under .spec"));
    if (stp !== "" && !stp.startsWith(".status.")) errs.push(invalid(`${p}.subresources.scale.statusReplicasPath`, stp, "should be a json path under .status"));
    if (lsp !== "" && !lsp.startsWith(".spec.") && !lsp.startsWith(".status.")) {
      errs.push(invalid(`${p}.subresources.scale.labelSelectorPath`, lsp, "should be a json path under either .spec or .status"));
    }
  }
  listField(v, "additionalPrinterColumns").forEach((c, i) => {
    if (!isObj(c) || typeof c.format !== "string" || c.format === "") return;
    if (!PRINTER_COLUMN_FORMATS.includes(c.format)) errs.push(notSupported(`${p}.additionalPrinterColumns[${i}].format`, c.format, PRINTER_COLUMN_FORMATS));
  });
  return errs;
}

export function validateCRD(obj: Record<string, unknown>, ext: ExtensionNames): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objField(obj, "spec");
  if (!spec) return errs;
  const group = strField(spec, "group");
  const n = objField(spec, "names");
  const plural = strField(n, "plural");
  const name = strField(objField(obj, "metadata"), "name");
  if (name !== "" && plural !== "" && group !== "" && name !== `${plural}.${group}`) {
    errs.push(invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group'));
  }
  if (group !== "") {
    const msgs = isDNS1123Subdomain(group);
    if (msgs.length > 0) errs.push(invalid("spec.group", group, msgs.join(",")));
    else if (group.split(".").length < 2) errs.push(invalid("spec.group", group, "should be a domain with at least one dot"));
  }
  if (n) errs.push(...validateNames(n, "spec.names"));

  const versions = listField(spec, "versions");
  if (Array.isArray(spec.versions)) {
    if (versions.length === 0) errs.push(required("spec.versions", "must have at least one version"));
    const seen = new Set<string>();
    let unique = true;
    let storage = 0;
    versions.forEach((v, i) => {
      if (!isObj(v)) return;
      if (v.storage === true) storage++;
      const vn = strField(v, "name");
      if (seen.has(vn)) unique = false;
      seen.add(vn);
      errs.push(...validateVersion(v, `spec.versions[${i}]`, ext));
    });
    if (!unique) errs.push(invalid("spec.versions", versions, "must contain unique version names"));
    if (versions.length > 0 && storage !== 1) errs.push(invalid("spec.versions", versions, "must have exactly one version marked as storage version"));
  }

  if (spec.preserveUnknownFields === true) {
    errs.push(invalid("spec.preserveUnknownFields", true, `cannot set to true, set ${ext.preserveUnknownFields} to true in spec.versions[*].schema instead`));
  }

  const conversion = objField(spec, "conversion");
  if (conversion) {
    const webhook = objField(conversion, "webhook");
    if (conversion.strategy === "Webhook") {
      if (!webhook) errs.push(required("spec.conversion.webhook", "must be set when strategy is set to Webhook"));
      else {
        const cc = objField(webhook, "clientConfig");
        if (!cc) errs.push(required("spec.conversion.webhook.clientConfig", "required when strategy is set to Webhook"));
        else errs.push(...validateWebhookClientConfig("spec.conversion.webhook.clientConfig", cc));
        errs.push(...validateReviewVersions(webhook.conversionReviewVersions, "spec.conversion.webhook.conversionReviewVersions"));
      }
    } else if (webhook) {
      errs.push(forbidden("spec.conversion.webhook", "should not be set when strategy is not set to Webhook"));
    }
  }
  return errs;
}
