/**
 * The generic registry: create, get, list, update, delete, deletecollection and watch
 * for any kind, joining a storage (direct or cached) to a per-kind strategy.
 * It knows nothing about HTTP; handlers translate requests into these calls.
 *
 * A kind served in several versions (conversion.ts) keeps one storage form: the
 * strategy is the storage version's; objects in and out of every public method are
 * in this registry's version, converted at the boundary.
 */
import { badRequest, conflict, invalid, type StatusError } from "../../../shared/api/status.ts";
import { cloneValue, hasOwn, withOwn } from "../../../shared/schema/values.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { StorageError, type ObjectStorage, type Predicate, type ResourceVersionMatch, type Watcher } from "../storage/interface.ts";
import { meta, type JsonObject, type ObjectMetaView } from "../storage/object.ts";
import { toResourceError } from "./errors.ts";
import { collectionPrefix, objectKey, type ResourceInfo } from "./resource.ts";
import type { Strategy } from "./strategy.ts";
import type { VersionView } from "./conversion.ts";
import { sameInVersion, validateInRequestVersion } from "./version-checks.ts";
import { generateName, newUid, timestamp } from "./system-meta.ts";
import type { ServiceNetwork } from "./service-allocation.ts";
import type { AuditLevel } from "../audit/policy.ts";

/**
 * The admission hook points (admission/ implements them). Phase 1 (`admit`) runs
 * after system metadata and defaulting and may return a replaced object; phase 2
 * (`validate`) runs after the strategy's validation. Objects are in this
 * registry's version (the request's), never the storage form. Throwing rejects
 * the request before anything is stored.
 */
export interface AdmissionHooks {
  /**
   * The object to go on with: `req.object` itself, or undefined, when no plugin read or
   * replaced it (a plugin that reads it gets a copy first); otherwise the changed copy.
   */
  admit?(req: AdmissionRequest): Promise<JsonObject | undefined>;
  validate?(req: AdmissionRequest): Promise<void>;
}
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** One write as admission sees it. */
export interface AdmissionRequest {
  operation: AdmissionOperation;
  resource: ResourceInfo;
  /** The object's name ("" when unknown). */
  name: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  /** The new object (create, update); undefined for delete. */
  object: JsonObject | undefined;
  /** The stored object (update, delete). */
  oldObject: JsonObject | undefined;
  ctx: WriteContext;
}

export interface WriteContext {
  resource: ResourceInfo;
  namespace?: string;
  name: string;
  subresource?: string;
  dryRun: boolean;
  /** Set by the handler: the authenticated user (for admission). */
  user?: { username: string; groups: string[]; uid?: string; extra?: Record<string, string[]> };
  /** CreateOptions, UpdateOptions or DeleteOptions of the request (for admission). */
  options?: JsonObject;
  /** Sink of `Warning` headers (the handler's). */
  warnings?: string[];
  /** Sink of audit annotations. */
  annotations?: Record<string, string>;
  /** The level of the request's audit event (leveled annotations above it are dropped). */
  auditLevel?: AuditLevel;
  /**
   * The extra authorization of a write that creates an absent object (PUT or apply that
   * creates): checked after mutating admission and validation, before validating
   * admission, as the platform does; throws 403.
   */
  authorizeCreate?: () => Promise<void>;
}

export interface ListRequest {
  namespace?: string;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  limit?: number;
  continueToken?: string;
  predicate?: Predicate;
  hasSelector?: boolean;
}

export interface WatchRequest {
  namespace?: string;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  predicate?: Predicate;
}

export interface RegistryOptions {
  now?: () => number;
  admission?: AdmissionHooks;
  /** Attempts at a fresh generated name on collision. */
  generateNameAttempts?: number;
  /** Service ClusterIP and NodePort ranges (default 10.0.0.0/24 and 30000-32767). */
  serviceNetwork?: ServiceNetwork;
  /** `--event-ttl` in whole seconds: Events live this long after their last write (0 or absent: forever). */
  eventTtlSeconds?: number;
}

/** How a registry of a converted kind turns its version into the storage form and back. */
export interface RegistryConversion {
  view: VersionView;
  /** The served version's own strategy when it is not the storage version: requests are validated by it first. */
  requestStrategy?: Strategy;
}

/** `m[key] = stored`, or no such key when `stored` is undefined (deleted only if `m` has it). */
function keepStoredValue<K extends "deletionTimestamp" | "deletionGracePeriodSeconds">(m: ObjectMetaView, key: K, stored: ObjectMetaView[K]): void {
  if (stored !== undefined) m[key] = stored;
  else if (hasOwn(m as Record<string, unknown>, key)) delete m[key];
}

export class Registry {
  readonly now: () => number;

  /** `strategy` is the storage version's (the served version's own when the kind has one version). */
  constructor(
    readonly resource: ResourceInfo,
    readonly strategy: Strategy,
    readonly storage: ObjectStorage,
    readonly options: RegistryOptions = {},
    readonly conversion?: RegistryConversion,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** A stored object in this registry's version (the object itself when there is no conversion). */
  async toRequest(obj: JsonObject): Promise<JsonObject> {
    return this.conversion ? (await this.conversion.view.fromStorageAsync([obj]))[0] : obj;
  }

  /** `toRequest` of an object that is never mutated (watch cache); the result must not be mutated either. */
  async toRequestShared(obj: Readonly<JsonObject>): Promise<Readonly<JsonObject>> {
    const view = this.conversion?.view;
    if (!view) return obj;
    return view.remote ? (await view.fromSharedAsync([obj]))[0] : view.fromShared(obj);
  }

  /** `toRequestShared` of several objects (a list): one call of a remote converter for all. */
  async toRequestSharedMany(objs: ReadonlyArray<Readonly<JsonObject>>): Promise<ReadonlyArray<Readonly<JsonObject>>> {
    return this.conversion ? this.conversion.view.fromSharedAsync(objs) : objs;
  }

  /**
   * The storage form of a request object. A version other than the storage version is
   * first prepared, defaulted and validated by its own strategy, so errors name its
   * fields; `current` is the stored object for updates.
   */
  private async intoStorage(obj: JsonObject, current: JsonObject | undefined, ctx: WriteContext): Promise<JsonObject> {
    if (!this.conversion) return obj;
    const strategy = this.conversion.requestStrategy;
    if (strategy) {
      const errors = validateInRequestVersion(strategy, obj, current && (await this.toRequest(current)), ctx.subresource);
      if (errors.length > 0) throw this.invalid(ctx.name || (meta(obj).name ?? ""), errors);
    }
    return this.conversion.view.toStorageAsync(obj);
  }

  /**
   * True when a converted update changes nothing visible in this registry's version:
   * the stored object is then kept as it is (a round trip through another version
   * may reorder the storage form, e.g. the v1 cpu metric goes last).
   */
  private async unchangedInRequestVersion(next: JsonObject, current: JsonObject): Promise<boolean> {
    if (!this.conversion) return false;
    const [a, b] = await this.conversion.view.fromStorageAsync([next, current]);
    return sameInVersion((o) => cloneValue(o), a, b);
  }

  /**
   * A list or watch predicate over this registry's version turned into one over stored
   * objects: a converted kind whose version has a field selector view reads through it.
   */
  storedPredicate(predicate: Predicate | undefined): Predicate | undefined {
    const view = this.conversion?.view.converter.fieldSelectorView;
    return predicate && view ? (obj) => predicate(view(obj)) : predicate;
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.resource, namespace, name);
  }

  /** Turns storage errors into Status errors naming this resource. */
  fail(err: unknown, name: string): never {
    throw toResourceError(err, this.resource, name);
  }

  invalid(name: string, errors: FieldError[]): StatusError {
    return invalid(this.resource.kind, name, errors, this.resource.group);
  }

  /** Sets the namespace from the request and checks it agrees with the body. */
  private scope(obj: JsonObject, namespace: string | undefined): void {
    const m = meta(obj);
    if (!this.resource.namespaced) {
      delete m.namespace;
      return;
    }
    if (m.namespace && namespace && m.namespace !== namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
    if (!m.namespace) m.namespace = namespace;
  }

  /** Creates `input` (in this registry's version); returns the stored object in this version. */
  async create(input: JsonObject, ctx: Omit<WriteContext, "resource" | "name">): Promise<JsonObject> {
    let obj = cloneValue(input);
    this.scope(obj, ctx.namespace);
    const m = meta(obj);
    const namespace = m.namespace;
    const generated = !m.name && !!m.generateName;
    const attempts = generated ? (this.options.generateNameAttempts ?? 8) : 1;
    for (let attempt = 0; ; attempt++) {
      if (generated) meta(obj).name = generateName(m.generateName as string);
      const name = meta(obj).name ?? "";
      const wctx: WriteContext = withOwn(ctx, { resource: this.resource, name });
      const prepared = await this.beforeCreate(obj, wctx);
      try {
        return await this.toRequest(await this.storage.create(this.key(namespace, name), prepared, { dryRun: ctx.dryRun }));
      } catch (err) {
        if (err instanceof StorageError && err.code === "KeyExists" && generated && attempt + 1 < attempts) {
          obj = cloneValue(input);
          this.scope(obj, ctx.namespace);
          continue;
        }
        this.fail(err, name);
      }
    }
  }

  /**
   * System metadata, strategy, defaulting, admission and validation of a new object:
   * `input` in this registry's version, the result in the storage form.
   */
  async beforeCreate(input: JsonObject, ctx: WriteContext): Promise<JsonObject> {
    const obj = await this.intoStorage(cloneValue(input), undefined, ctx);
    const m = meta(obj);
    delete m.resourceVersion;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    m.uid = newUid();
    m.creationTimestamp = timestamp(this.now());
    this.strategy.prepareForCreate(obj, ctx.user);
    let out = this.defaultOwned(obj);
    if (this.options.admission?.admit) out = await this.admitDefaulted("CREATE", out, undefined, ctx);
    const errors = this.strategy.validate(out);
    if (errors.length > 0) throw this.invalid(meta(out).name ?? "", errors);
    await ctx.authorizeCreate?.();
    await this.validatePhase("CREATE", out, undefined, ctx);
    return out;
  }

  async get(namespace: string | undefined, name: string, resourceVersion?: string): Promise<JsonObject> {
    return this.toRequest(await this.getStored(namespace, name, resourceVersion));
  }

  /** `get` in the storage form. */
  async getStored(namespace: string | undefined, name: string, resourceVersion?: string): Promise<JsonObject> {
    try {
      return await this.storage.get(this.key(namespace, name), { resourceVersion });
    } catch (err) {
      this.fail(err, name);
    }
  }

  async list(req: ListRequest): Promise<{ items: JsonObject[]; resourceVersion: string; continueToken?: string; remainingItemCount?: number }> {
    try {
      const res = await this.storage.list(collectionPrefix(this.resource, req.namespace), {
        resourceVersion: req.resourceVersion,
        resourceVersionMatch: req.resourceVersionMatch,
        limit: req.limit,
        continueToken: req.continueToken,
        predicate: this.storedPredicate(req.predicate),
        hasSelector: req.hasSelector,
      });
      return this.conversion ? { ...res, items: await this.conversion.view.fromStorageAsync(res.items) } : res;
    } catch (err) {
      this.fail(err, "");
    }
  }

  async watch(req: WatchRequest): Promise<Watcher> {
    try {
      const watcher = await this.storage.watch(collectionPrefix(this.resource, req.namespace), {
        resourceVersion: req.resourceVersion,
        resourceVersionMatch: req.resourceVersionMatch,
        sendInitialEvents: req.sendInitialEvents,
        allowWatchBookmarks: req.allowWatchBookmarks,
        predicate: this.storedPredicate(req.predicate),
      });
      return this.conversion ? this.conversion.view.watcher(watcher) : watcher;
    } catch (err) {
      this.fail(err, "");
    }
  }

  /**
   * Update (PUT) or any write computed from the current object (`compute`): the new
   * object must carry the current resourceVersion unless the kind allows unconditional
   * updates. Creates the object when absent and the kind allows create on update.
   * An update that leaves a Terminating object without finalizers deletes it (the
   * result is then the last state). `compute` receives and returns objects in this registry's version, and so does the result.
   */
  async update(
    namespace: string | undefined,
    name: string,
    compute: (current: JsonObject | undefined) => Promise<JsonObject> | JsonObject,
    ctx: Omit<WriteContext, "resource" | "name">,
    opts: { forceAllowCreate?: boolean } = {},
  ): Promise<{ object: JsonObject; created: boolean }> {
    const wctx: WriteContext = withOwn(ctx, { resource: this.resource, name });
    const allowCreate = opts.forceAllowCreate || this.strategy.allowCreateOnUpdate;
    let created = false;
    const key = this.key(namespace, name);
    try {
      const object = await this.storage.guaranteedUpdate(
        key,
        async (current) => {
          const next = cloneValue(await compute(current && (await this.toRequest(current))));
          this.scope(next, namespace);
          const m = meta(next);
          if (m.name !== undefined && m.name !== name) {
            throw badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
          }
          m.name = name;
          if (!current) {
            if (!allowCreate) throw new StorageError("NotFound", key, `key ${key} not found`);
            created = true;
            return this.beforeCreate(next, wctx);
          }
          created = false;
          const out = await this.prepareUpdate(next, current, wctx);
          return (await this.unchangedInRequestVersion(out, current)) ? undefined : out;
        },
        { ignoreNotFound: allowCreate, dryRun: ctx.dryRun },
      );
      const updated = await this.toRequest(object);
      // A write that removed the last finalizer of a Terminating object completes its deletion.
      const finished = created ? undefined : await this.finishDeletionIfDone(namespace, updated, ctx.dryRun);
      return { object: finished ?? updated, created };
    } catch (err) {
      this.fail(err, name);
    }
  }

  /**
   * Resource version check, system metadata carry-over, strategy, admission, validation:
   * `input` in this registry's version, `current` and the result in the storage form.
   */
  async beforeUpdate(input: JsonObject, current: JsonObject, ctx: WriteContext): Promise<JsonObject> {
    return this.prepareUpdate(cloneValue(input), current, ctx);
  }

  /** `beforeUpdate` of an object the caller hands over (it is changed and may be the result). */
  private async prepareUpdate(input: JsonObject, current: JsonObject, ctx: WriteContext): Promise<JsonObject> {
    const cm = meta(current);
    const rv = meta(input).resourceVersion;
    if (!rv) {
      if (!this.strategy.allowUnconditionalUpdate) {
        throw this.invalid(ctx.name, [{ type: "FieldValueInvalid", field: "metadata.resourceVersion", value: 0, message: "must be specified for an update" }]);
      }
    } else if (rv !== cm.resourceVersion) {
      throw conflict(this.resource.plural, ctx.name, this.resource.group);
    }
    const obj = await this.intoStorage(input, current, ctx);
    const m = meta(obj);
    m.uid = cm.uid;
    m.creationTimestamp = cm.creationTimestamp;
    // The stored values, absent when the stored object has none. A key is deleted only when the
    // input brought it: a delete turns the object into a slow (dictionary) one.
    keepStoredValue(m, "deletionTimestamp", cm.deletionTimestamp);
    keepStoredValue(m, "deletionGracePeriodSeconds", cm.deletionGracePeriodSeconds);
    let out: JsonObject;
    const special = ctx.subresource && ctx.subresource !== "status" ? this.strategy.prepareForSubresource?.(ctx.subresource, obj, current) : undefined;
    if (special) {
      out = this.strategy.applyDefaults(special);
    } else {
      if (ctx.subresource === "status") out = this.strategy.prepareForStatusUpdate(obj, current);
      else {
        this.strategy.prepareForUpdate(obj, current);
        out = obj;
      }
      out = this.defaultOwned(out);
    }
    if (this.options.admission?.admit) out = await this.admitDefaulted("UPDATE", out, current, ctx);
    const errors = (ctx.subresource && this.strategy.validateSubresourceUpdate?.(ctx.subresource, out, current)) || this.strategy.validateUpdate(out, current);
    if (errors.length > 0) throw this.invalid(ctx.name, errors);
    await this.validatePhase("UPDATE", out, current, ctx);
    return out;
  }

  /**
   * Defaulting of the object a create or update prepared. Ownership rule: `input` of
   * beforeCreate/prepareUpdate is the registry's own copy, and the main-resource and
   * status preparations keep it so (they copy what they take from the stored object), so
   * it is defaulted in place. A converted kind's object comes from its conversion and
   * a kind-specific subresource's from its strategy: those are defaulted on a copy.
   */
  private defaultOwned(obj: JsonObject): JsonObject {
    if (this.conversion || !this.strategy.applyDefaultsInPlace) return this.strategy.applyDefaults(obj);
    return this.strategy.applyDefaultsInPlace(obj);
  }

  private async admissionRequest(operation: AdmissionOperation, obj: JsonObject | undefined, old: JsonObject | undefined, ctx: WriteContext): Promise<AdmissionRequest> {
    const m = obj ? meta(obj) : old ? meta(old) : {};
    return {
      operation,
      resource: this.resource,
      name: ctx.name || (m.name ?? ""),
      namespace: this.resource.namespaced ? (m.namespace ?? ctx.namespace ?? "") : "",
      object: obj && (await this.toRequest(obj)),
      oldObject: old && (await this.toRequest(old)),
      ctx,
    };
  }

  /**
   * Phase 1 on the defaulted storage form `out`. An object no plugin read comes back as
   * it went in (the hooks' contract) and stays as it is; one a plugin read or replaced
   * keeps the system fields the server set and is defaulted again.
   */
  private async admitDefaulted(operation: AdmissionOperation, out: JsonObject, old: JsonObject | undefined, ctx: WriteContext): Promise<JsonObject> {
    const admitted = await this.admitPhase(operation, out, old, ctx);
    return admitted === out ? out : this.strategy.applyDefaults(this.keepSystemFields(out, admitted));
  }

  /** Phase 1 on the storage form `obj`: the plugins see and change it in this registry's version. */
  private async admitPhase(operation: AdmissionOperation, obj: JsonObject, old: JsonObject | undefined, ctx: WriteContext): Promise<JsonObject> {
    const admission = this.options.admission;
    if (!admission?.admit) return obj;
    const req = await this.admissionRequest(operation, obj, old, ctx);
    const before = req.object as JsonObject;
    const out = (await admission.admit(req)) ?? before;
    if (out !== before) this.checkIdentityKept(before, out);
    return this.conversion ? this.conversion.view.toStorageAsync(out) : out;
  }

  /** The system metadata the server set (uid, timestamps, resourceVersion) stays whatever mutating admission did. */
  private keepSystemFields(before: JsonObject, after: JsonObject): JsonObject {
    if (after === before) return after;
    const b = meta(before);
    const a = meta(after);
    for (const key of ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "resourceVersion"] as const) {
      if (b[key] === undefined) delete a[key];
      else (a as Record<string, unknown>)[key] = b[key];
    }
    return after;
  }

  /** Mutating admission may not move an object: its type, name and namespace stay (the storage key is already chosen). */
  private checkIdentityKept(before: JsonObject, after: JsonObject): void {
    const b = meta(before);
    const a = meta(after);
    for (const [field, x, y] of [
      ["apiVersion", before.apiVersion, after.apiVersion],
      ["kind", before.kind, after.kind],
      ["metadata.name", b.name, a.name],
      ["metadata.namespace", b.namespace, a.namespace],
    ] as const) {
      if (x !== y) throw badRequest(`mutating admission may not change ${field} (from ${JSON.stringify(x ?? "")} to ${JSON.stringify(y ?? "")})`);
    }
  }

  /** Phase 2 (validating admission) of a write; `obj` and `old` in the storage form. */
  async validatePhase(operation: AdmissionOperation, obj: JsonObject | undefined, old: JsonObject | undefined, ctx: WriteContext): Promise<void> {
    const admission = this.options.admission;
    if (!admission?.validate) return;
    await admission.validate(await this.admissionRequest(operation, obj, old, ctx));
  }

  /** Phase 1 of a delete (stored object in the storage form); nothing replaces it. */
  async admitDelete(current: JsonObject, ctx: WriteContext): Promise<void> {
    const admission = this.options.admission;
    if (!admission?.admit) return;
    await admission.admit(await this.admissionRequest("DELETE", undefined, current, ctx));
  }

  /**
   * After a write: a Terminating object whose finalizers are all gone (and whose grace
   * period is not pending on a node) is removed from the store. `obj` and the result are
   * in this registry's version; undefined when the object stays.
   */
  async finishDeletionIfDone(namespace: string | undefined, obj: JsonObject, dryRun: boolean): Promise<JsonObject | undefined> {
    const m = meta(obj);
    if (!m.deletionTimestamp || (m.finalizers ?? []).length > 0 || this.strategy.deletionBlocked?.(obj)) return undefined;
    if (this.strategy.gracePeriodSeconds?.(obj) !== undefined && (m.deletionGracePeriodSeconds ?? 0) > 0) return undefined;
    try {
      return await this.toRequest(await this.storage.delete(this.key(namespace, m.name ?? ""), { preconditions: { resourceVersion: m.resourceVersion }, dryRun }));
    } catch {
      return undefined; // changed again meanwhile: the next write decides
    }
  }
}
