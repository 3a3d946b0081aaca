/**
 * The ObjectClient over HTTPS (transport.ts): JSON requests, watch streams read
 * frame by frame (one JSON object per line), and `getPath` for discovery. Built from a
 * resolved client configuration or straight from a kubeconfig file. Objects travel in
 * the chosen content type (`contentType`: json, protobuf or cbor; wire-codec.ts).
 */
import type { IncomingMessage } from "node:http";
import type { Status } from "../api/status.ts";
import { loadKubeconfig, type ClientConfig } from "./kubeconfig.ts";
import {
  resourcePath,
  type ApiObject,
  type DeleteOptions,
  type ListOptions,
  type ObjectClient,
  type ObjectList,
  type PatchType,
  type PathGetter,
  type ResourceRef,
  type SelectorOptions,
  type WatchEvent,
  type WatchOptions,
  type WatchStream,
  type WriteOptions,
} from "./object-client.ts";
import { getProfile, type PlatformProfile } from "../platform/index.ts";
import { HttpsTransport, type TransportOptions } from "./transport.ts";
import { WireCodec, type EncodedBody, type WatchDecoder, type WireContentType } from "./wire-codec.ts";

export interface ObjectClientOptions extends TransportOptions {
  /** How objects travel (default json). */
  contentType?: WireContentType;
  /** The naming profile of the server (protobuf media type, built-in kinds); default `plat`. */
  profile?: PlatformProfile;
}

const PATCH_TYPES: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

function selectors(o: SelectorOptions): Record<string, string | undefined> {
  return { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector };
}

function writeQuery(o: WriteOptions): string {
  return query({ dryRun: o.dryRun ? "All" : undefined, fieldManager: o.fieldManager });
}

function deleteBody(o: DeleteOptions): EncodedBody {
  const body: Record<string, unknown> = { apiVersion: "v1", kind: "DeleteOptions" };
  if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
  if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.preconditions) body.preconditions = o.preconditions;
  if (o.dryRun) body.dryRun = ["All"];
  return { contentType: "application/json", data: JSON.stringify(body) };
}

/** Splits a watch response into events (decoded by its Content-Type); ends when the server closes or `stop()` is called. */
async function* frames(res: IncomingMessage, decoder: WatchDecoder): AsyncGenerator<WatchEvent> {
  for await (const chunk of res) yield* decoder.push(chunk as Buffer);
  yield* decoder.end();
}

export class HttpsObjectClient implements ObjectClient, PathGetter {
  readonly transport: HttpsTransport;
  readonly codec: WireCodec;
  private readonly onResponse: ObjectClientOptions["onResponse"];

  constructor(
    readonly config: ClientConfig,
    opts: ObjectClientOptions = {},
  ) {
    this.transport = new HttpsTransport(config, opts);
    this.onResponse = opts.onResponse;
    this.codec = new WireCodec(opts.contentType ?? "json", opts.profile ?? getProfile());
  }

  /** One request in the chosen content type; a non-2xx answer throws its Status. */
  private async request(method: string, path: string, body?: EncodedBody): Promise<unknown> {
    return this.codec.result(method, path, await this.transport.send(method, path, body, this.codec.accept()));
  }

  static fromKubeconfig(path: string, context?: string): HttpsObjectClient {
    return new HttpsObjectClient(loadKubeconfig(path, context));
  }

  getPath(path: string): Promise<unknown> {
    return this.transport.json("GET", path);
  }

  async get(res: ResourceRef, name: string, opts: { namespace?: string; subresource?: string; resourceVersion?: string } = {}): Promise<ApiObject> {
    return (await this.request("GET", resourcePath(res, opts.namespace, name, opts.subresource) + query({ resourceVersion: opts.resourceVersion }))) as ApiObject;
  }

  async list(res: ResourceRef, opts: ListOptions = {}): Promise<ObjectList> {
    const q = query({ ...selectors(opts), resourceVersion: opts.resourceVersion, resourceVersionMatch: opts.resourceVersionMatch, limit: opts.limit, continue: opts.continue });
    return (await this.request("GET", resourcePath(res, opts.namespace) + q)) as ObjectList;
  }

  watch(res: ResourceRef, opts: WatchOptions = {}): WatchStream {
    const q = query({
      watch: 1,
      ...selectors(opts),
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: opts.allowWatchBookmarks ? "true" : undefined,
      timeoutSeconds: opts.timeoutSeconds,
    });
    const path = resourcePath(res, opts.namespace) + q;
    const { response, abort } = this.transport.open("GET", path, undefined, this.codec.accept());
    const codec = this.codec;
    const onResponse = this.onResponse;
    // A watch stopped before anyone iterated it must not leave an unhandled rejection behind.
    response.catch(() => {});
    let stopped = false;
    const events = async function* (): AsyncGenerator<WatchEvent> {
      let msg: IncomingMessage;
      try {
        msg = await response;
      } catch (err) {
        if (stopped) return;
        throw err;
      }
      const code = msg.statusCode ?? 0;
      onResponse?.({ method: "GET", path, status: code, contentType: msg.headers["content-type"] });
      if (code !== 200) {
        const chunks: Buffer[] = [];
        for await (const c of msg) chunks.push(c as Buffer);
        const err = codec.failure({ status: code, body: Buffer.concat(chunks), contentType: msg.headers["content-type"] });
        // A refused start is reported like the platform's clients see it: one ERROR event.
        yield { type: "ERROR", object: err.status };
        return;
      }
      try {
        const ct = msg.headers["content-type"];
        yield* frames(msg, codec.watchDecoder(res, ct));
      } catch (err) {
        if (!stopped) throw err;
      }
    };
    const iterable = events();
    return {
      [Symbol.asyncIterator]: () => iterable,
      stop() {
        stopped = true;
        abort();
      },
    };
  }

  async create(res: ResourceRef, obj: ApiObject, opts: WriteOptions = {}): Promise<ApiObject> {
    const ns = opts.namespace ?? obj.metadata.namespace;
    return (await this.request("POST", resourcePath(res, ns) + writeQuery(opts), this.codec.encode(obj))) as ApiObject;
  }

  async update(res: ResourceRef, obj: ApiObject, opts: WriteOptions = {}): Promise<ApiObject> {
    const ns = opts.namespace ?? obj.metadata.namespace;
    const path = resourcePath(res, ns, obj.metadata.name ?? "", opts.subresource) + writeQuery(opts);
    return (await this.request("PUT", path, this.codec.encode(obj))) as ApiObject;
  }

  async patch(res: ResourceRef, name: string, type: PatchType, patch: unknown, opts: WriteOptions = {}): Promise<ApiObject> {
    const path = resourcePath(res, opts.namespace, name, opts.subresource) + writeQuery(opts);
    return (await this.request("PATCH", path, { contentType: PATCH_TYPES[type], data: typeof patch === "string" ? patch : JSON.stringify(patch) })) as ApiObject;
  }

  async delete(res: ResourceRef, name: string, opts: DeleteOptions = {}): Promise<ApiObject | Status> {
    return (await this.request("DELETE", resourcePath(res, opts.namespace, name), deleteBody(opts))) as ApiObject | Status;
  }

  /** The DELETE of `delete`; a 2xx answer's body is not decoded. */
  async deleteOnly(res: ResourceRef, name: string, opts: DeleteOptions = {}): Promise<void> {
    const answer = await this.transport.send("DELETE", resourcePath(res, opts.namespace, name), deleteBody(opts), this.codec.accept());
    if (answer.status < 200 || answer.status >= 300) throw this.codec.failure(answer);
  }

  async deleteCollection(res: ResourceRef, opts: DeleteOptions & SelectorOptions = {}): Promise<ObjectList | Status> {
    return (await this.request("DELETE", resourcePath(res, opts.namespace) + query(selectors(opts)), deleteBody(opts))) as ObjectList | Status;
  }

  /** Closes the kept-alive connections (running watches end). */
  close(): void {
    this.transport.close();
  }
}
