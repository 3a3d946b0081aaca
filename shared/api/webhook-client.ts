/**
 * Validation of a webhook client configuration (`url` or `service`, plus
 * `caBundle`), shared by admission webhooks (admissionregistration/v1) and
 * conversion webhooks of custom resource definitions (apiextensions/v1).
 * Messages are the platform's.
 */
import { isDNS1123Subdomain } from "../schema/formats.ts";
import type { FieldError } from "../schema/types.ts";
import { has, invalid, objField, required, strField } from "./field-errors.ts";

const URL_FORM = "; desired format: https://host[/path]";

/** An https URL with a host and no user information, query or fragment. */
export function validateWebhookURL(field: string, url: string): FieldError[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [required(field, `url must be a valid URL: parse ${JSON.stringify(url)}: invalid URL${URL_FORM}`)];
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, "");
  if (scheme !== "https") errs.push(invalid(field, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host === "") errs.push(invalid(field, u.host, `host must be specified${URL_FORM}`));
  if (u.username !== "" || u.password !== "") {
    const user = u.password ? `${u.username}:xxxxx` : u.username;
    errs.push(invalid(field, user, "user information is not permitted in the URL"));
  }
  if (u.hash !== "") errs.push(invalid(field, u.hash.slice(1), "fragments are not permitted in the URL"));
  if (u.search !== "") errs.push(invalid(field, u.search.slice(1), "query parameters are not permitted in the URL"));
  return errs;
}

/** A service reference: name, namespace, a valid port, and a path of DNS-subdomain segments. */
export function validateWebhookService(field: string, service: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  // Absent fields are the schema's `required`; empty strings are reported here.
  if (service.name === "") errs.push(required(`${field}.name`, "service name is required"));
  if (service.namespace === "") errs.push(required(`${field}.namespace`, "service namespace is required"));
  const port = service.port;
  if (typeof port === "number" && (port < 1 || port > 65535 || !Number.isInteger(port))) {
    errs.push(invalid(`${field}.port`, port, "port is not valid: must be between 1 and 65535, inclusive"));
  }
  const path = service.path;
  if (typeof path !== "string" || path === "" || path === "/") return errs;
  if (path === "//") return [...errs, invalid(`${field}.path`, path, "segment[0] may not be empty")];
  if (!path.startsWith("/")) errs.push(invalid(`${field}.path`, path, "must start with a '/'"));
  let rest = path.slice(1);
  if (rest.endsWith("/")) rest = rest.slice(0, -1);
  rest.split("/").forEach((step, i) => {
    if (step === "") {
      errs.push(invalid(`${field}.path`, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const m of isDNS1123Subdomain(step)) errs.push(invalid(`${field}.path`, path, `segment[${i}]: ${m}`));
  });
  return errs;
}

/** Exactly one of `url` and `service`, each valid. `field` is the path of the clientConfig. */
export function validateWebhookClientConfig(field: string, cc: Record<string, unknown> | undefined): FieldError[] {
  if (!cc) return [];
  const hasURL = has(cc, "url");
  const service = objField(cc, "service");
  if (hasURL === (service !== undefined)) return [required(field, "exactly one of url or service is required")];
  if (hasURL) return validateWebhookURL(`${field}.url`, strField(cc, "url"));
  return validateWebhookService(`${field}.service`, service ?? {});
}
