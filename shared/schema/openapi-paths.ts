/**
 * The REST paths and operations of one kind, independent of the OpenAPI
 * version: collection and item paths (namespaced ones also list across all
 * namespaces), the `status` and `scale` subresources, one operation per
 * served verb, with the platform's operation ids (`listCoreV1NamespacedPod`).
 *
 * Contract: schemas are given as ready `$ref` objects by the caller; this
 * module only decides paths, verbs, parameters and media types.
 */
import type { PlatformProfile } from "../platform/index.ts";
import type { KindDefinition } from "./types.ts";

export type JsonObject = Record<string, unknown>;

export const ALL_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"] as const;

export interface ParamSpec {
  name: string;
  in: "path" | "query";
  type: "string" | "integer" | "boolean";
  description: string;
  required?: boolean;
}

export interface ResponseSpec {
  code: string;
  description: string;
  schema?: JsonObject;
}

export interface OperationSpec {
  method: "get" | "post" | "put" | "patch" | "delete";
  operationId: string;
  description: string;
  /** The platform's action extension value (`list`, `post`, `put`, `deletecollection`…). */
  action: string;
  params: ParamSpec[];
  body?: { schema: JsonObject; patch: boolean; required: boolean };
  responses: ResponseSpec[];
  produces: string[];
  consumes: string[];
  tag: string;
  gvk: { group: string; version: string; kind: string };
}

export interface PathSpec {
  path: string;
  params: ParamSpec[];
  operations: OperationSpec[];
}

/** Schemas the operations of one kind refer to. */
export interface KindRefs {
  object: JsonObject;
  list: JsonObject;
  status: JsonObject;
  deleteOptions: JsonObject;
  scale?: JsonObject;
}

export const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"];

const q = (name: string, type: ParamSpec["type"], description: string): ParamSpec => ({ name, in: "query", type, description });
const PRETTY = q("pretty", "string", "If 'true', then the output is pretty printed.");
const LIST_PARAMS: ParamSpec[] = [
  q("allowWatchBookmarks", "boolean", "Requests watch events with type BOOKMARK."),
  q("continue", "string", "The continue token of the previous chunk of a chunked list."),
  q("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields."),
  q("labelSelector", "string", "A selector to restrict the list of returned objects by their labels."),
  q("limit", "integer", "The maximum number of responses to return for a list call."),
  q("resourceVersion", "string", "Constrains what resource versions a request may be served from."),
  q("resourceVersionMatch", "string", "Determines how resourceVersion is applied to list calls."),
  q("sendInitialEvents", "boolean", "With watch=true, starts the watch stream with synthetic events for the current state."),
  q("timeoutSeconds", "integer", "Timeout for the list/watch call."),
  q("watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."),
];
const WRITE_PARAMS: ParamSpec[] = [
  q("dryRun", "string", "When present, indicates that modifications should not be persisted."),
  q("fieldManager", "string", "A name associated with the actor or entity that is making these changes."),
  q("fieldValidation", "string", "How the server handles unknown or duplicate fields: Ignore, Warn or Strict."),
];
const DELETE_PARAMS: ParamSpec[] = [
  q("dryRun", "string", "When present, indicates that modifications should not be persisted."),
  q("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted."),
  q("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean", "Deletes an object that cannot be read from the store; may break the cluster."),
  q("orphanDependents", "boolean", "Deprecated: use propagationPolicy."),
  q("propagationPolicy", "string", "Whether and how garbage collection will be performed: Orphan, Background or Foreground."),
];
const FORCE = q("force", "boolean", "Force is going to force Apply requests; must be unset for other patches.");
const pathParam = (name: string, description: string): ParamSpec => ({ name, in: "path", type: "string", description, required: true });
const NAMESPACE = pathParam("namespace", "object name and auth scope, such as for teams and projects");

/** `rbac.authorization.<domain>` → `RbacAuthorization`, core → `Core`. */
export function groupCamel(profile: PlatformProfile, kind: KindDefinition): string {
  const wire = profile.group(kind.group);
  if (wire === "") return "Core";
  const suffix = `.${profile.groupDomain}`;
  const local = wire.endsWith(suffix) ? wire.slice(0, -suffix.length) : wire;
  return local
    .split(/[.-]/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join("");
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPrefix(profile: PlatformProfile, kind: KindDefinition): string {
  const wire = profile.group(kind.group);
  return wire === "" ? `/api/${kind.version}` : `/apis/${wire}/${kind.version}`;
}

/** All paths of one kind. */
export function kindPaths(kind: KindDefinition, profile: PlatformProfile, refs: KindRefs): PathSpec[] {
  const verbs = new Set(kind.virtual ? ["create"] : (kind.verbs ?? ALL_VERBS));
  const base = groupVersionPrefix(profile, kind);
  const camelGroup = groupCamel(profile, kind);
  const v = kind.version[0].toUpperCase() + kind.version.slice(1);
  const gv = `${camelGroup}${v}`;
  const scope = kind.namespaced ? "Namespaced" : "";
  const gvk = { group: profile.group(kind.group), version: kind.version, kind: kind.kind };
  const media = ["application/json", "application/yaml", profile.protobufMediaType];
  const tag = `${camelGroup[0].toLowerCase()}${camelGroup.slice(1)}_${kind.version}`;
  const op = (o: Omit<OperationSpec, "tag" | "gvk" | "produces" | "consumes"> & Partial<Pick<OperationSpec, "produces" | "consumes">>): OperationSpec => ({
    produces: media,
    consumes: [],
    tag,
    gvk,
    ...o,
  });
  const ok = (schema: JsonObject): ResponseSpec[] => [
    { code: "200", description: "OK", schema },
    { code: "401", description: "Unauthorized" },
  ];
  const created = (schema: JsonObject): ResponseSpec[] => [
    { code: "200", description: "OK", schema },
    { code: "201", description: "Created", schema },
    { code: "202", description: "Accepted", schema },
    { code: "401", description: "Unauthorized" },
  ];

  const collection = `${base}${kind.namespaced ? "/namespaces/{namespace}" : ""}/${kind.plural}`;
  const scopeParams = kind.namespaced ? [NAMESPACE] : [];
  const paths: PathSpec[] = [];

  const collectionOps: OperationSpec[] = [];
  if (verbs.has("list")) {
    collectionOps.push(
      op({ method: "get", operationId: `list${gv}${scope}${kind.kind}`, description: `list or watch objects of kind ${kind.kind}`, action: "list", params: LIST_PARAMS, responses: ok(refs.list), produces: [...media, "application/json;stream=watch", `${profile.protobufMediaType};stream=watch`] }),
    );
  }
  if (verbs.has("create")) {
    collectionOps.push(
      op({ method: "post", operationId: `create${gv}${scope}${kind.kind}`, description: `create a ${kind.kind}`, action: "post", params: WRITE_PARAMS, body: { schema: refs.object, patch: false, required: true }, responses: created(refs.object), consumes: ["application/json", "application/yaml"] }),
    );
  }
  if (verbs.has("deletecollection")) {
    collectionOps.push(
      op({ method: "delete", operationId: `delete${gv}Collection${scope}${kind.kind}`, description: `delete collection of ${kind.kind}`, action: "deletecollection", params: [...DELETE_PARAMS, ...LIST_PARAMS.filter((p) => p.name !== "watch" && p.name !== "allowWatchBookmarks")], body: { schema: refs.deleteOptions, patch: false, required: false }, responses: ok(refs.status) }),
    );
  }
  if (collectionOps.length) paths.push({ path: collection, params: [...scopeParams, PRETTY], operations: collectionOps });

  if (kind.namespaced && verbs.has("list")) {
    paths.push({
      path: `${base}/${kind.plural}`,
      params: [PRETTY],
      operations: [
        op({ method: "get", operationId: `list${gv}${kind.kind}ForAllNamespaces`, description: `list or watch objects of kind ${kind.kind}`, action: "list", params: LIST_PARAMS, responses: ok(refs.list), produces: [...media, "application/json;stream=watch"] }),
      ],
    });
  }

  const itemParams = [pathParam("name", `name of the ${kind.kind}`), ...scopeParams, PRETTY];
  const itemOps = (suffix: string, path: string, schema: JsonObject, what: string, withDelete: boolean): PathSpec | undefined => {
    const ops: OperationSpec[] = [];
    if (verbs.has("get")) ops.push(op({ method: "get", operationId: `read${gv}${scope}${kind.kind}${suffix}`, description: `read ${what} of the specified ${kind.kind}`, action: "get", params: [], responses: ok(schema) }));
    if (verbs.has("update")) {
      ops.push(op({ method: "put", operationId: `replace${gv}${scope}${kind.kind}${suffix}`, description: `replace ${what} of the specified ${kind.kind}`, action: "put", params: WRITE_PARAMS, body: { schema, patch: false, required: true }, responses: created(schema).filter((r) => r.code !== "202"), consumes: ["application/json", "application/yaml"] }));
    }
    if (verbs.has("patch")) {
      ops.push(op({ method: "patch", operationId: `patch${gv}${scope}${kind.kind}${suffix}`, description: `partially update ${what} of the specified ${kind.kind}`, action: "patch", params: [...WRITE_PARAMS, FORCE], body: { schema: { type: "object" }, patch: true, required: true }, responses: created(schema).filter((r) => r.code !== "202"), consumes: PATCH_TYPES }));
    }
    if (withDelete && verbs.has("delete")) {
      ops.push(op({ method: "delete", operationId: `delete${gv}${scope}${kind.kind}`, description: `delete a ${kind.kind}`, action: "delete", params: DELETE_PARAMS, body: { schema: refs.deleteOptions, patch: false, required: false }, responses: [...ok(refs.status), { code: "202", description: "Accepted", schema: refs.status }] }));
    }
    return ops.length ? { path, params: itemParams, operations: ops } : undefined;
  };
  const item = `${collection}/{name}`;
  const main = itemOps("", item, refs.object, kind.kind, true);
  if (main) paths.push(main);
  if (kind.subresources?.includes("status")) {
    const status = itemOps("Status", `${item}/status`, refs.object, "status", false);
    if (status) paths.push(status);
  }
  if (kind.subresources?.includes("scale") && refs.scale) {
    const scale = itemOps("Scale", `${item}/scale`, refs.scale, "scale", false);
    if (scale) paths.push(scale);
  }
  return paths;
}
