/**
 * One typed client for any built-in kind, driven by its descriptor (kinds.generated.ts):
 * the verbs of the ObjectClient with the kind's object type in and out, `apiVersion` and
 * `kind` filled in on writes, server-side apply, and the subresources the kind serves:
 *  - status, scale, ephemeralcontainers, resize, approval, finalize: read/replace/patch
 *    through the ObjectClient's `subresource` option;
 *  - eviction, binding and token (POST of a body kind of their own) and log/proxy (plain
 *    text) through the raw transport (`RawSender`, e.g. `HttpsObjectClient.transport`).
 * `ClientFor<D, T>` narrows the class to the verbs and subresources a descriptor lists,
 * so a call the server does not serve does not compile. Streams that upgrade the
 * connection (exec, attach, portforward) are not REST calls and are not offered here.
 */
import { errorFromResponse, transportError, type RawResponse } from "../transport.ts";
import type { Status } from "../../api/status.ts";
import type { GroupKey, PlatformProfile } from "../../platform/index.ts";
import {
  resourcePath,
  type ApiObject,
  type DeleteOptions,
  type ListOptions,
  type ObjectClient,
  type PatchType,
  type ResourceRef,
  type SelectorOptions,
  type WatchOptions,
  type WriteOptions,
} from "../object-client.ts";
import { SUBRESOURCE_BODY_KINDS, type SubresourceBodyTypes } from "./kinds.generated.ts";

/** What the table says of one kind. */
export interface KindDescriptor {
  readonly kind: string;
  readonly resource: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly subresources: readonly string[];
}

/** A raw request sender (status, body and Content-Type back); `HttpsTransport` is one. */
export interface RawSender {
  send(method: string, pathAndQuery: string, body?: { contentType: string; data: string | Buffer }, accept?: string): Promise<RawResponse>;
}

export interface TypedList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

export type TypedWatchEvent<T> = { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T } | { type: "ERROR"; object: Status };

export interface TypedWatch<T> extends AsyncIterable<TypedWatchEvent<T>> {
  stop(): void;
}

export interface ApplyOptions {
  fieldManager: string;
  force?: boolean;
  dryRun?: boolean;
  namespace?: string;
  subresource?: string;
}

export interface LogOptions {
  namespace?: string;
  container?: string;
  previous?: boolean;
  timestamps?: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  limitBytes?: number;
}

/** Objects as the typed client takes them: any shape of the kind with some metadata. */
interface WithMeta {
  metadata?: { name?: string; namespace?: string };
}

type Scale = SubresourceBodyTypes["scale"];

export class KindClient<T extends object> {
  readonly ref: ResourceRef;
  readonly apiVersion: string;

  constructor(
    private readonly client: ObjectClient,
    private readonly profile: PlatformProfile,
    readonly group: GroupKey,
    readonly version: string,
    readonly descriptor: KindDescriptor,
    private readonly raw?: RawSender,
  ) {
    this.ref = { group: profile.group(group), version, resource: descriptor.resource };
    this.apiVersion = profile.apiVersion(group, version);
  }

  private typed(obj: T): ApiObject {
    const meta = (obj as WithMeta).metadata ?? {};
    return { ...obj, apiVersion: this.apiVersion, kind: this.descriptor.kind, metadata: meta } as ApiObject;
  }

  private namespaceOf(obj: T, opts: { namespace?: string }): string | undefined {
    return opts.namespace ?? (obj as WithMeta).metadata?.namespace;
  }

  async get(name: string, namespace?: string): Promise<T> {
    return (await this.client.get(this.ref, name, { namespace })) as T;
  }

  async list(opts: ListOptions = {}): Promise<TypedList<T>> {
    return (await this.client.list(this.ref, opts)) as unknown as TypedList<T>;
  }

  watch(opts: WatchOptions = {}): TypedWatch<T> {
    return this.client.watch(this.ref, opts) as unknown as TypedWatch<T>;
  }

  async create(obj: T, opts: WriteOptions = {}): Promise<T> {
    return (await this.client.create(this.ref, this.typed(obj), opts)) as T;
  }

  async update(obj: T, opts: WriteOptions = {}): Promise<T> {
    return (await this.client.update(this.ref, this.typed(obj), { ...opts, namespace: this.namespaceOf(obj, opts) })) as T;
  }

  async patch(name: string, type: PatchType, patch: unknown, opts: WriteOptions = {}): Promise<T> {
    return (await this.client.patch(this.ref, name, type, patch, opts)) as T;
  }

  /** Server-side apply of `obj` (its metadata names it); `force` takes over conflicting fields. */
  async apply(obj: T, opts: ApplyOptions): Promise<T> {
    const name = (obj as WithMeta).metadata?.name ?? "";
    const namespace = this.namespaceOf(obj, opts);
    const body = JSON.stringify(this.typed(obj));
    if (!opts.force) return this.patch(name, "apply", body, { namespace, fieldManager: opts.fieldManager, dryRun: opts.dryRun, subresource: opts.subresource });
    const query = new URLSearchParams({ fieldManager: opts.fieldManager, force: "true" });
    if (opts.dryRun) query.set("dryRun", "All");
    const path = `${resourcePath(this.ref, namespace, name, opts.subresource)}?${query}`;
    return (await this.rawJson("PATCH", path, { contentType: "application/apply-patch+yaml", data: body })) as T;
  }

  delete(name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    return this.client.delete(this.ref, name, opts) as Promise<T | Status>;
  }

  async deleteCollection(opts: DeleteOptions & SelectorOptions = {}): Promise<TypedList<T> | Status> {
    return (await this.client.deleteCollection(this.ref, opts)) as unknown as TypedList<T> | Status;
  }

  // ---- subresources that carry the kind itself ----

  async getStatus(name: string, namespace?: string): Promise<T> {
    return (await this.client.get(this.ref, name, { namespace, subresource: "status" })) as T;
  }
  updateStatus(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.update(obj, { ...opts, subresource: "status" });
  }
  patchStatus(name: string, type: PatchType, patch: unknown, opts: WriteOptions = {}): Promise<T> {
    return this.patch(name, type, patch, { ...opts, subresource: "status" });
  }
  updateEphemeralContainers(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.update(obj, { ...opts, subresource: "ephemeralcontainers" });
  }
  patchEphemeralContainers(name: string, type: PatchType, patch: unknown, opts: WriteOptions = {}): Promise<T> {
    return this.patch(name, type, patch, { ...opts, subresource: "ephemeralcontainers" });
  }
  updateResize(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.update(obj, { ...opts, subresource: "resize" });
  }
  patchResize(name: string, type: PatchType, patch: unknown, opts: WriteOptions = {}): Promise<T> {
    return this.patch(name, type, patch, { ...opts, subresource: "resize" });
  }
  updateApproval(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.update(obj, { ...opts, subresource: "approval" });
  }
  /** PUT of the object to `finalize` (a Namespace's spec.finalizers). */
  finalize(obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.update(obj, { ...opts, subresource: "finalize" });
  }

  // ---- subresources with a kind of their own ----

  async getScale(name: string, namespace?: string): Promise<Scale> {
    return (await this.client.get(this.ref, name, { namespace, subresource: "scale" })) as Scale;
  }
  async updateScale(name: string, scale: Scale, opts: WriteOptions = {}): Promise<Scale> {
    const obj = { ...this.bodyOf("scale", scale), metadata: { ...scale.metadata, name } } as ApiObject;
    return (await this.client.update(this.ref, obj, { ...opts, namespace: opts.namespace ?? scale.metadata?.namespace, subresource: "scale" })) as Scale;
  }
  async patchScale(name: string, type: PatchType, patch: unknown, opts: WriteOptions = {}): Promise<Scale> {
    return (await this.client.patch(this.ref, name, type, patch, { ...opts, subresource: "scale" })) as Scale;
  }

  /** POST of an Eviction for the pod `name`: the Status of the eviction, or a 429 StatusError while a budget forbids it. */
  async evict(name: string, opts: { namespace?: string; deleteOptions?: SubresourceBodyTypes["eviction"]["deleteOptions"] } = {}): Promise<Status> {
    const body = this.bodyOf("eviction", { metadata: { name, namespace: opts.namespace }, ...(opts.deleteOptions ? { deleteOptions: opts.deleteOptions } : {}) });
    return (await this.post(name, "eviction", opts.namespace, body)) as Status;
  }

  /** POST of a Binding (the node a pod is assigned to). */
  async bind(name: string, binding: SubresourceBodyTypes["binding"], opts: { namespace?: string } = {}): Promise<Status> {
    const namespace = opts.namespace ?? binding.metadata?.namespace;
    return (await this.post(name, "binding", namespace, this.bodyOf("binding", { ...binding, metadata: { ...binding.metadata, name, namespace } }))) as Status;
  }

  /** POST of a TokenRequest for the service account `name` (no audiences: the server's); the answer carries `status.token`. */
  async createToken(name: string, request: SubresourceBodyTypes["token"] = { spec: { audiences: [] } }, opts: { namespace?: string } = {}): Promise<SubresourceBodyTypes["token"]> {
    const namespace = opts.namespace ?? request.metadata?.namespace;
    const body = this.bodyOf("token", { ...request, metadata: { ...request.metadata, name, namespace } });
    return (await this.post(name, "token", namespace, body)) as SubresourceBodyTypes["token"];
  }

  /** A container's log as text. */
  async log(name: string, opts: LogOptions = {}): Promise<string> {
    const query = new URLSearchParams();
    for (const key of ["container", "previous", "timestamps", "tailLines", "sinceSeconds", "limitBytes"] as const) {
      if (opts[key] !== undefined) query.set(key, String(opts[key]));
    }
    const q = query.size > 0 ? `?${query}` : "";
    return (await this.rawText("GET", `${resourcePath(this.ref, opts.namespace, name, "log")}${q}`)).toString("utf8");
  }

  /** A GET through the object's `proxy` subresource (`path` below it), as text. */
  async proxyGet(name: string, path = "", opts: { namespace?: string } = {}): Promise<string> {
    const below = path.replace(/^\/+/, "");
    return (await this.rawText("GET", `${resourcePath(this.ref, opts.namespace, name, "proxy")}/${below}`)).toString("utf8");
  }

  // ---- plumbing ----

  private bodyOf(subresource: keyof typeof SUBRESOURCE_BODY_KINDS, obj: object): object {
    const k = SUBRESOURCE_BODY_KINDS[subresource];
    return { apiVersion: this.profile.apiVersion(k.group, k.version), kind: k.kind, ...obj };
  }

  private post(name: string, subresource: string, namespace: string | undefined, body: object): Promise<unknown> {
    return this.rawJson("POST", resourcePath(this.ref, namespace, name, subresource), { contentType: "application/json", data: JSON.stringify(body) });
  }

  private sender(): RawSender {
    if (!this.raw) throw transportError(new Error(`${this.descriptor.resource}: this client has no raw transport for subresource calls`));
    return this.raw;
  }

  private async rawText(method: string, path: string, body?: { contentType: string; data: string }): Promise<Buffer> {
    const res = await this.sender().send(method, path, body, "*/*");
    if (res.status < 200 || res.status >= 300) throw errorFromResponse(res.status, res.body);
    return res.body;
  }

  private async rawJson(method: string, path: string, body: { contentType: string; data: string }): Promise<unknown> {
    const text = (await this.rawText(method, path, body)).toString("utf8");
    try {
      return JSON.parse(text);
    } catch {
      throw transportError(new Error(`${method} ${path}: the answer is not JSON`));
    }
  }
}

/** Method names offered per verb of a descriptor. */
export const VERB_METHODS = {
  get: ["get"],
  list: ["list"],
  watch: ["watch"],
  create: ["create"],
  update: ["update"],
  patch: ["patch", "apply"],
  delete: ["delete"],
  deletecollection: ["deleteCollection"],
} as const satisfies Record<string, ReadonlyArray<keyof KindClient<object>>>;

/** Method names offered per subresource (streams that upgrade the connection offer none). */
export const SUBRESOURCE_METHODS = {
  status: ["getStatus", "updateStatus", "patchStatus"],
  scale: ["getScale", "updateScale", "patchScale"],
  eviction: ["evict"],
  binding: ["bind"],
  token: ["createToken"],
  log: ["log"],
  proxy: ["proxyGet"],
  ephemeralcontainers: ["updateEphemeralContainers", "patchEphemeralContainers"],
  resize: ["updateResize", "patchResize"],
  approval: ["updateApproval"],
  finalize: ["finalize"],
  exec: [],
  attach: [],
  portforward: [],
} as const satisfies Record<string, ReadonlyArray<keyof KindClient<object>>>;

/** What every client of the table carries besides its methods. */
const IDENTITY = ["ref", "apiVersion", "descriptor", "group", "version"] as const;

type MethodsOf<M, Keys> = Keys extends keyof M ? (M[Keys] extends ReadonlyArray<infer Name> ? Name : never) : never;

/** The typed client of one table entry: only the verbs and subresources it serves. */
export type ClientFor<D extends KindDescriptor, T extends object> = Pick<
  KindClient<T>,
  Extract<(typeof IDENTITY)[number] | MethodsOf<typeof VERB_METHODS, D["verbs"][number]> | MethodsOf<typeof SUBRESOURCE_METHODS, D["subresources"][number]>, keyof KindClient<T>>
>;

/** A KindClient narrowed at run time as `ClientFor` narrows it in types: the served methods only, bound. */
export function servedClient<T extends object>(full: KindClient<T>): Record<string, unknown> {
  const d = full.descriptor;
  const names = [
    ...d.verbs.flatMap((v) => (v in VERB_METHODS ? VERB_METHODS[v as keyof typeof VERB_METHODS] : [])),
    ...d.subresources.flatMap((s) => (s in SUBRESOURCE_METHODS ? SUBRESOURCE_METHODS[s as keyof typeof SUBRESOURCE_METHODS] : [])),
  ];
  const out: Record<string, unknown> = {};
  for (const key of IDENTITY) out[key] = full[key];
  for (const name of names) out[name] = (full[name] as (...args: unknown[]) => unknown).bind(full);
  return out;
}
