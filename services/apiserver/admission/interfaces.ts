/**
 * The admission plugin contract (the platform's `admission.Interface`,
 * `MutationInterface` and `ValidationInterface`).
 *
 * A write that passed authentication and authorization runs through the chain
 * (chain.ts) before it is persisted: phase 1 calls `admit` of every enabled plugin
 * that `handles` the operation, in the recommended order (order.ts), then the
 * registry defaults and validates the object, then phase 2 calls `validate` of
 * every such plugin in the same order. Reads (get, list, watch) never reach
 * admission. A plugin rejects a request by throwing a StatusError (use
 * `forbiddenWithReason`, `invalid`, `badRequest` from shared/api/status.ts); any
 * other thrown error becomes a 500 InternalError naming the plugin.
 *
 * What a plugin sees (`Attributes`):
 * - the object and the old object in the version and kind of the request (not the
 *   storage form); `admit` may change `attributes.object` in place or replace it
 *   with `setObject`; `validate` must not change it;
 * - the operation (CREATE, UPDATE, DELETE, CONNECT), its options object
 *   (CreateOptions, UpdateOptions, DeleteOptions; may be absent), the subresource,
 *   name and namespace, the user, and whether the request is a dry run (a plugin
 *   with side effects must not perform them on a dry run);
 * - `addWarning` (a `Warning: 299` response header) and `addAnnotation` (an audit
 *   annotation, keyed `<plugin key>/<name>` by convention, e.g.
 *   `pod-security.<domain>/enforce-policy`).
 *
 * What a plugin gets at construction (`PluginContext`): the naming profile, its
 * configuration (the `configuration` object or the parsed `path` file of its
 * entry in `--admission-control-config-file`, undefined when none), `objects` (a
 * narrow reader and updater over the served kinds: current state, or the watch
 * cache's when asked, no admission on its updates), the authorizer (for plugins that check permissions)
 * and a logger. Plugins never import the registry, the catalog or HTTP code.
 *
 * Registration: `registerPlugin(name, factory)` in plugins.ts (names are unique;
 * the recommended order of all names is in order.ts). A factory that rejects its
 * configuration throws an Error whose message names the problem; start-up fails.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { JsonObject } from "../storage/object.ts";
import type { AuditLevel } from "../audit/policy.ts";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface GroupVersionKind {
  /** Wire group ("" for core). */
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  /** Wire group ("" for core). */
  group: string;
  version: string;
  resource: string;
}

/** One admission request as plugins see it. */
export interface Attributes {
  readonly operation: Operation;
  /** Kind of the object in the request's version. */
  readonly kind: GroupVersionKind;
  /** Resource of the request (group/version as requested). */
  readonly resource: GroupVersionResource;
  /** "" for the main resource; "status", "scale", "binding", "eviction", ... */
  readonly subresource: string;
  /** The object's name; "" for a create with generateName before a name is chosen. */
  readonly name: string;
  /** "" for cluster-scoped objects. */
  readonly namespace: string;
  /** The new object (create, update; the current object for delete is in `oldObject`). */
  readonly object: JsonObject | undefined;
  /** The stored object (update, delete). */
  readonly oldObject: JsonObject | undefined;
  /** CreateOptions, UpdateOptions, DeleteOptions or the connect options, as sent. */
  readonly options: JsonObject | undefined;
  readonly userInfo: UserInfo;
  readonly dryRun: boolean;
  /** True when the resource is namespaced. */
  readonly namespaced: boolean;
  /**
   * The mutating phase runs a second time (every mutating plugin, webhooks only when
   * they asked for it) when a webhook requests reinvocation; 0 on the first pass.
   */
  readonly reinvocation?: Reinvocation;
  /** Replaces the object (mutating phase only). */
  setObject(obj: JsonObject): void;
  /** A `Warning` header for the client. */
  addWarning(message: string): void;
  /** An audit annotation on the request's audit event. */
  addAnnotation(key: string, value: string): void;
  /**
   * An audit annotation recorded only when the request is audited at `level` or above (it
   * may carry request data); `value` is computed only then.
   */
  addAnnotationWithLevel(key: string, level: AuditLevel, value: () => string): void;
}

/** The platform's ReinvocationContext: the pass, a request for a second pass, per-plugin state across passes. */
export interface Reinvocation {
  readonly round: number;
  requestReinvocation(): void;
  readonly state: Map<string, unknown>;
}

/** The plugin interface: `admit` mutates (phase 1), `validate` checks (phase 2). */
export interface AdmissionPlugin {
  readonly name: string;
  /** Whether the plugin takes part in requests of this operation; fixed (the chain asks once per phase and operation). */
  handles(operation: Operation): boolean;
  admit?(attributes: Attributes): Promise<void> | void;
  validate?(attributes: Attributes): Promise<void> | void;
  /** Stops timers and informers; called when the replica stops. */
  close?(): void;
}

/** Reference to an object of a served kind, by wire group and plural (preferred version). */
export interface ObjectRef {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
}

/**
 * Narrow access to stored objects for plugins. Objects come back in the preferred
 * version of the group; `get` returns undefined when absent. Reads return the
 * current state (a quorum read: one store round trip, then the watch cache);
 * `{ cached: true }` answers from the watch cache as it is, like the platform's
 * informer listers (it may lag the store by the cache's delay, no round trip).
 */
export interface ObjectAccess {
  get(ref: ObjectRef, opts?: { cached?: boolean }): Promise<JsonObject | undefined>;
  /**
   * The watch cache's object as it is now (what `get` with `cached` answers), at once
   * and without a copy: callers must not mutate it nor anything under it. Undefined
   * when the cache cannot answer this way (not held, cache not started, a converted
   * kind): ask `get` then. Absent on accessors without a cache.
   */
  peek?(ref: ObjectRef): Readonly<JsonObject> | undefined;
  list(group: string, resource: string, namespace?: string, opts?: { cached?: boolean }): Promise<JsonObject[]>;
  /**
   * Read-modify-write with optimistic concurrency, retried on conflicts: `mutate`
   * gets the current object (a copy) and returns the new one, or undefined to leave
   * it as it is. Passes no admission. Returns the stored object.
   */
  update(ref: ObjectRef, mutate: (current: JsonObject) => JsonObject | undefined, opts?: { subresource?: string }): Promise<JsonObject | undefined>;
  /** Creates an object (e.g. a default ServiceAccount); AlreadyExists is an error. */
  create(group: string, resource: string, obj: JsonObject): Promise<JsonObject>;
  /**
   * Keeps `onChange` informed of every object of a kind (all namespaces): called
   * with the full current list after the first list and after every change,
   * from the watch cache. `synced` resolves after the first call.
   */
  watchList(group: string, resource: string, onChange: (items: readonly JsonObject[]) => void): { synced: Promise<void>; stop(): void };
}

/** Asks the replica's authorizer (the same decision as a SubjectAccessReview). */
export type AuthorizeCheck = (
  user: UserInfo,
  attrs: { verb: string; group: string; version?: string; resource: string; subresource?: string; namespace?: string; name?: string },
) => Promise<boolean>;

/** The authorizer's full answer to one question, resource or non-resource (policies' `authorizer` variable). */
export type AuthorizeDecision = (
  user: UserInfo,
  attrs: { verb: string; isResourceRequest: boolean; path: string; group: string; version: string; resource: string; subresource: string; namespace: string; name: string },
) => Promise<{ decision: "Allow" | "Deny" | "NoOpinion"; reason: string; error?: string }>;

export interface PluginContext {
  profile: PlatformProfile;
  /** Per-plugin configuration from --admission-control-config-file, undefined when none. */
  config: JsonObject | undefined;
  objects: ObjectAccess;
  /** Set once the authorizer exists; plugins call it only while admitting. */
  authorize: AuthorizeCheck;
  /** The same authorizer with its reason and error; absent when the replica authorizes everything. */
  authorizeDecision?: AuthorizeDecision;
  log: LogFn;
}

export type PluginFactory = (ctx: PluginContext) => AdmissionPlugin | Promise<AdmissionPlugin>;
