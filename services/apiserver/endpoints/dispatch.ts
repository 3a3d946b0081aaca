/**
 * Routes a parsed resource request to the handler of its verb (and subresource),
 * after negotiating the response type.
 */
import { handleComponentStatuses, type ComponentStatusProvider } from "./handlers/component-statuses.ts";
import { methodNotAllowed, notFound, statusError } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { Catalog } from "../registry/catalog.ts";
import { negotiateOutput } from "./negotiation.ts";
import { prettyParam } from "./query-bool.ts";
import { createOnUpdateCheck, extraVerbCheck, type AuthorizeRequest } from "./create-on-update.ts";
import type { RequestInfo } from "./request-info.ts";
import { handleDelete, handleDeleteCollection } from "./handlers/delete.ts";
import { handlePatch } from "./handlers/patch.ts";
import { handleGet, handleList } from "./handlers/read.ts";
import { handleWatch } from "./handlers/watch.ts";
import { handleScale } from "./handlers/scale.ts";
import { handleBindings, POD_ACTION_SUBRESOURCES } from "./handlers/pod-actions.ts";
import { handlePodLog } from "./handlers/pod-log.ts";
import { handleNodeProxy } from "./handlers/node-proxy.ts";
import { handleResourceProxy } from "./handlers/resource-proxy.ts";
import { handlePodConnect } from "./upgrade-connect.ts";
import { CONNECT_SUBRESOURCES } from "../registry/pod-exec-options.ts";
import type { KubeletClientConfig } from "./handlers/kubelet-client.ts";
import { handleVirtual, type VirtualHandler } from "./virtual.ts";
import { tokenRequestKind } from "../../../shared/api/groups/authentication-v1.ts";
import { handleCreate, handleUpdate } from "./handlers/write.ts";
import type { ResponseMediaType } from "./encode.ts";
import { warningHeader, type RequestScope, type UserInfo } from "./scope.ts";
import type { AuditLevel } from "../audit/policy.ts";

const NOT_FOUND_MESSAGE = "the server could not find the requested resource";

function pageNotFound(): Error {
  return statusError({ code: 404, reason: "NotFound", message: NOT_FOUND_MESSAGE, details: { causes: [{ reason: "UnexpectedServerResponse", message: "404 page not found" }] } });
}

/** Subresources served by the generic handlers (same object, split by the strategy). */
const GENERIC_SUBRESOURCES = new Set(["status", "finalize", "token", "approval", "ephemeralcontainers", "resize"]);
/** A subresource with its own handler: the verbs it answers (any when absent) and the handler. */
interface SubresourceRoute {
  verbs?: readonly string[];
  handle(s: RequestScope, cfg: DispatchConfig): Promise<Response>;
}

/** Own-handler subresources of one resource, by `<group>/<plural>/<subresource>`. */
const RESOURCE_SUBRESOURCES: Record<string, SubresourceRoute> = {
  "/serviceaccounts/token": { verbs: ["create"], handle: (s, cfg) => handleVirtual(s, cfg.virtual?.get("/serviceaccounts/token"), tokenRequestKind) },
  "/nodes/proxy": { handle: (s, cfg) => handleNodeProxy(s, cfg.catalog, cfg.kubelet) },
  "/pods/proxy": { handle: (s, cfg) => handleResourceProxy(s, cfg.catalog) },
  "/services/proxy": { handle: (s, cfg) => handleResourceProxy(s, cfg.catalog) },
  "/pods/log": { verbs: ["get"], handle: (s, cfg) => handlePodLog(s, cfg.catalog, cfg.kubelet) },
  ...Object.fromEntries(CONNECT_SUBRESOURCES.map((sub) => [`/pods/${sub}`, { verbs: ["get", "create"], handle: (s: RequestScope, cfg: DispatchConfig) => handlePodConnect(s, cfg.catalog, cfg.kubelet, sub) }])),
  ...Object.fromEntries(Object.entries(POD_ACTION_SUBRESOURCES).map(([sub, action]) => [`/pods/${sub}`, { verbs: ["create"], handle: (s: RequestScope, cfg: DispatchConfig) => action(s, cfg.catalog) }])),
};

/** Own-handler subresources of every resource that declares them. */
const ANY_RESOURCE_SUBRESOURCES: Record<string, SubresourceRoute> = { scale: { verbs: ["get", "update", "patch"], handle: (s) => handleScale(s) } };

function subresourceRoute(group: string, plural: string, subresource: string): SubresourceRoute | undefined {
  return RESOURCE_SUBRESOURCES[`${group}/${plural}/${subresource}`] ?? ANY_RESOURCE_SUBRESOURCES[subresource];
}

/**
 * Resources served without the registry, by `<group>/<plural>`: computed on each read
 * (componentstatuses) or create-only with a handler of their own (bindings). Any other
 * virtual resource is create-only and served by the replica's handler of that key
 * (`DispatchConfig.virtual`).
 */
const VIRTUAL_RESOURCES: Record<string, SubresourceRoute> = {
  "/componentstatuses": { verbs: ["get", "list"], handle: (s, cfg) => handleComponentStatuses(s, cfg.componentStatuses) },
  "/bindings": { verbs: ["create"], handle: (s, cfg) => handleBindings(s, cfg.catalog) },
};

function virtualRoute(group: string, plural: string, virtual: boolean): SubresourceRoute | undefined {
  const key = `${group}/${plural}`;
  return VIRTUAL_RESOURCES[key] ?? (virtual ? { verbs: ["create"], handle: (s, cfg) => handleVirtual(s, cfg.virtual?.get(key)) } : undefined);
}

/** What the resource dispatcher needs of the replica. */
export interface DispatchConfig {
  profile: PlatformProfile;
  catalog: Catalog;
  maxBodyBytes: number;
  bookmarkIntervalMs: number;
  /** Handlers of create-only virtual resources and subresources, keyed `<group>/<resource>[/<subresource>]`. */
  virtual?: Map<string, VirtualHandler>;
  /** Serve and read CBOR (the CBORServingAndStorage gate). */
  cbor?: boolean;
  /** The replica's authorization check, asked again with verb `create` when a PUT or apply creates the object. */
  authorize?: AuthorizeRequest;
  /** How the connect subresources (pods/log) reach node agents. */
  kubelet?: KubeletClientConfig;
  /** The control-plane health behind componentstatuses (computed, never stored). */
  componentStatuses?: ComponentStatusProvider;
}

/** One resource request as the dispatcher takes it. */
export interface ResourceCall {
  info: RequestInfo;
  request: Request;
  url: URL;
  user: UserInfo;
  /** Collects the request's `Warning` header values (the request context's list). */
  warnings: string[];
  /** The request's audit annotations, kept at the event's `auditLevel`. */
  annotations?: Record<string, string>;
  auditLevel?: AuditLevel;
  /** The answer headers recorded so far, which encoded bodies carry in their header record. */
  answerHeaders?: readonly string[];
}

/**
 * Serves one resource request.
 * Not async: it returns the handler's own promise (no adopting promise and turns of its own), and may throw before it has one; callers treat both alike.
 */
export function dispatchResource(cfg: DispatchConfig, call: ResourceCall): Promise<Response> {
  const { info, request: req, url, user, warnings, annotations, auditLevel, answerHeaders } = call;
  const served = cfg.catalog.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!served) throw pageNotFound();
  const { resource, registry } = served;
  const def = resource.def;
  const route = info.subresource ? subresourceRoute(resource.group, resource.plural, info.subresource) : undefined;
  if (info.subresource && (!def.subresources?.includes(info.subresource as never) || (!route && !GENERIC_SUBRESOURCES.has(info.subresource)))) {
    throw pageNotFound();
  }
  const collectionVerb = info.verb === "list" || info.verb === "watch" || info.verb === "deletecollection" || info.verb === "create";
  if (resource.namespaced && info.namespace === "" && !collectionVerb && info.resource !== "namespaces") throw pageNotFound();
  if (!resource.namespaced && info.namespace !== "" && info.resource !== "namespaces") throw pageNotFound();
  // A deprecated custom resource version warns on every request.
  if (def.deprecationWarning) warnings.push(warningHeader(def.deprecationWarning));
  const reads = info.verb === "get" || info.verb === "list" || info.verb === "watch";
  const negotiated = negotiateOutput(req.headers.get("accept"), {
    profile: cfg.profile,
    protobuf: !!def.protobuf && (!info.subresource || info.subresource === "status"),
    cbor: cfg.cbor,
    watch: info.verb === "watch",
    conversion: reads && !info.subresource ? { table: true, partialObjectMetadata: true } : undefined,
  });
  const plainRead = reads && !info.subresource;
  const query = url.searchParams;
  const pretty = prettyParam(query, req.headers.get("user-agent"));
  const scope: RequestScope = {
    request: req,
    query,
    profile: cfg.profile,
    registry,
    resource,
    namespace: resource.namespaced ? info.namespace || undefined : undefined,
    name: info.name || undefined,
    subresource: info.subresource || undefined,
    verb: info.verb,
    mediaType: negotiated.mediaType as ResponseMediaType,
    encoding: negotiated.encoding,
    cbor: !!cfg.cbor,
    target: negotiated.target,
    pretty,
    user,
    // A read of a resource (no subresource: no connect) never asks for a create or another verb.
    authorizeCreate: plainRead ? undefined : createOnUpdateCheck(cfg.authorize, user, info, req),
    authorizeVerb: plainRead ? undefined : extraVerbCheck(cfg.authorize, user, info, req),
    warnings,
    answerHeaders,
    annotations,
    auditLevel,
    maxBodyBytes: cfg.maxBodyBytes,
    bookmarkIntervalMs: cfg.bookmarkIntervalMs,
  };
  const virtual = virtualRoute(resource.group, resource.plural, !!def.virtual);
  if (virtual) {
    if (virtual.verbs && !virtual.verbs.includes(info.verb)) throw methodNotAllowed(resource.plural, info.verb, resource.group);
    return virtual.handle(scope, cfg);
  }
  if (route) {
    if (route.verbs && !route.verbs.includes(info.verb)) throw methodNotAllowed(`${resource.plural}/${info.subresource}`, info.verb, resource.group);
    return route.handle(scope, cfg);
  }
  switch (info.verb) {
    case "get":
      return handleGet(scope);
    case "list":
      return handleList(scope);
    case "watch":
      return handleWatch(scope);
    case "create":
      if (info.name && !info.subresource) throw methodNotAllowed(resource.plural, "create", resource.group);
      return handleCreate(scope);
    case "update":
      return handleUpdate(scope);
    case "patch":
      return handlePatch(scope);
    case "delete":
      return handleDelete(scope);
    case "deletecollection":
      return handleDeleteCollection(scope);
    default:
      throw notFound(resource.plural, info.name, resource.group);
  }
}
