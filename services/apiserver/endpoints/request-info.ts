/**
 * Request info: what a request is about (verb, group, version, namespace,
 * resource, subresource, name), parsed from the method, path and query the way
 * the platform's RequestInfoFactory does. Pure; the first filter of the chain
 * stores the result in the request context for authentication, audit,
 * authorization and the handlers.
 *
 * Resource paths:
 *   /api/{version}/{resource}[/{name}[/{subresource}...]]
 *   /api/{version}/namespaces/{namespace}/{resource}[/{name}[/{subresource}...]]
 *   /apis/{group}/{version}/...  (same shapes)
 *   /api/{version}/watch/...     (legacy watch prefix), /api/{version}/proxy/...
 * Everything else (`/healthz`, `/version`, `/api`, `/apis`, `/apis/{group}`,
 * `/api/{version}`, `/apis/{group}/{version}`) is a non-resource request whose
 * verb is the lowercase HTTP method.
 */
import { parseFieldSelector, parseLabelSelector } from "../../../shared/api/selectors.ts";
import { internalError } from "../../../shared/api/status.ts";
import { isPathSegmentName } from "../../../shared/schema/formats.ts";
import { queryBool } from "./query-bool.ts";

export type ApiPrefix = "" | "api" | "apis";

export interface RequestInfo {
  /** True for requests under an API prefix with a group version and a resource. */
  isResourceRequest: boolean;
  /** The URL path, percent-decoded. */
  path: string;
  /** The API verb for resource requests (`get`, `list`, `watch`, `create`, ...), else the lowercase HTTP method. */
  verb: string;
  apiPrefix: ApiPrefix;
  /** "" for the core group. */
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path parts from the resource on: `[resource, name, subresource, ...]`. */
  parts: string[];
  /** Raw `fieldSelector` of list, watch and deletecollection requests. */
  fieldSelector?: string;
  /** Raw `labelSelector` of list, watch and deletecollection requests. */
  labelSelector?: string;
}

export interface RequestInfoOptions {
  /** Path prefixes of API requests, without slashes (default `api`, `apis`). */
  apiPrefixes?: readonly string[];
  /** Prefixes without a group segment (default `api`). */
  grouplessApiPrefixes?: readonly string[];
}

/** Verbs that may appear as a path segment after the version. */
const SPECIAL_VERBS = new Set(["proxy", "watch"]);
/** Special verbs whose paths carry no subresource. */
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(["proxy"]);
/** Subresources of a namespace, told apart from namespaced resources. */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);
const VERBS_WITH_SELECTORS = new Set(["list", "watch", "deletecollection"]);
const DEFAULT_API_PREFIXES: ReadonlySet<string> = new Set(["api", "apis"]);
const DEFAULT_GROUPLESS_PREFIXES: ReadonlySet<string> = new Set(["api"]);

const METHOD_VERBS: Readonly<Record<string, string>> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

const SLASH = 47;

/** Segments of a path without its leading and trailing slashes. */
function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === SLASH) start++;
  while (end > start && path.charCodeAt(end - 1) === SLASH) end--;
  return start === end ? [] : path.slice(start, end).split("/");
}

function decodePath(path: string): string {
  if (!path.includes("%")) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Path and query of a request target; a path is never read as a protocol-relative URL (`//x`). */
function splitTarget(target: string | URL): { pathname: string; search: string } {
  if (typeof target !== "string") return { pathname: target.pathname, search: target.search };
  if (!target.startsWith("/")) {
    const u = new URL(target);
    return { pathname: u.pathname, search: u.search };
  }
  const hash = target.indexOf("#");
  const t = hash >= 0 ? target.slice(0, hash) : target;
  const q = t.indexOf("?");
  return q >= 0 ? { pathname: t.slice(0, q), search: t.slice(q) } : { pathname: t, search: "" };
}

/** The name a list or watch targets through `fieldSelector=metadata.name=<name>`, if the selector parses. */
function nameFromSelectors(query: URLSearchParams): string | undefined {
  try {
    const label = query.get("labelSelector");
    if (label !== null) parseLabelSelector(label);
    const field = query.get("fieldSelector");
    if (field === null) return undefined;
    const name = parseFieldSelector(field).requiresExactMatch("metadata.name");
    return name !== undefined && isPathSegmentName(name).length === 0 ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Parses a request. `target` is a path with an optional query (`/api/v1/pods?watch=1`)
 * or an absolute URL; `query` overrides the query of `target` when given.
 * Throws a 500 `StatusError` for a special-verb path without a resource (`/api/v1/watch`).
 */
export function parseRequestInfo(method: string, target: string | URL, query?: URLSearchParams, options: RequestInfoOptions = {}): RequestInfo {
  const { pathname, search } = splitTarget(target);
  const params = query ?? new URLSearchParams(search);
  const apiPrefixes = options.apiPrefixes ? new Set(options.apiPrefixes) : DEFAULT_API_PREFIXES;
  const groupless = options.grouplessApiPrefixes ? new Set(options.grouplessApiPrefixes) : DEFAULT_GROUPLESS_PREFIXES;
  const path = decodePath(pathname);

  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: "",
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
    parts: [],
  };

  // One array of segments, walked by index (no copy per step); `parts` is the one slice of it.
  const segments = splitPath(path);
  if (segments.length < 3 || !apiPrefixes.has(segments[0])) return info;
  const prefix = segments[0];
  let at = 1;
  if (!groupless.has(prefix)) {
    if (segments.length - at < 3) return info;
    info.apiGroup = segments[at++];
  }
  info.apiPrefix = prefix === "api" || prefix === "apis" ? prefix : "";
  info.isResourceRequest = true;
  info.apiVersion = segments[at++];

  if (SPECIAL_VERBS.has(segments[at])) {
    if (segments.length - at < 2) {
      throw internalError(`failed to create RequestInfo: unable to determine kind and namespace from url, ${pathname}${search}`);
    }
    info.verb = segments[at++];
  } else {
    info.verb = METHOD_VERBS[method.toUpperCase()] ?? "";
  }

  if (segments[at] === "namespaces" && segments.length - at > 1) {
    info.namespace = segments[at + 1];
    // `/namespaces/{ns}/{resource}`: the resource is below the namespace,
    // unless the segment is a subresource of the namespace itself.
    if (segments.length - at > 2 && !NAMESPACE_SUBRESOURCES.has(segments[at + 2])) at += 2;
  }
  const current = segments.slice(at);
  info.parts = current;

  if (current.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(info.verb)) info.subresource = current[2];
  if (current.length >= 2) info.name = current[1];
  if (current.length >= 1) info.resource = current[0];

  if (info.name === "" && info.verb === "get") {
    const watch = params.getAll("watch");
    info.verb = watch.length > 0 && queryBool(watch[0]) === true ? "watch" : "list";
    const name = nameFromSelectors(params);
    if (name !== undefined) info.name = name;
  }
  if (info.name === "" && info.verb === "delete") info.verb = "deletecollection";

  if (VERBS_WITH_SELECTORS.has(info.verb)) {
    const field = params.get("fieldSelector");
    const label = params.get("labelSelector");
    if (field !== null) info.fieldSelector = field;
    if (label !== null) info.labelSelector = label;
  }
  return info;
}

/** `pods/log` style resource name used by authorization rules. */
export function resourceWithSubresource(info: Pick<RequestInfo, "resource" | "subresource">): string {
  return info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
}
