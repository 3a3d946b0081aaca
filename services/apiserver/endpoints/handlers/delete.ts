/** DELETE of one object and of a collection, with DeleteOptions from the body or the query. */
import { badRequest } from "../../../../shared/api/status.ts";
import { deleteOptions as deleteOptionsSchema } from "../../../../shared/api/groups/meta-v1.ts";
import { decodeEnvelope, decodeMessage, messageLayout } from "../../../../shared/codec/protobuf/index.ts";
import { deleteObject, deleteRequestFromObject, validateDeleteOptions, type DeleteRequest } from "../../registry/deletion.ts";
import { UNSAFE_DELETE_VERB } from "../../registry/unsafe-delete.ts";
import { isObject, meta, type JsonObject } from "../../storage/object.ts";
import { decodeBody, readBody } from "../body.ts";
import { respond } from "../encode.ts";
import { parseBool, parseListQuery } from "../list-options.ts";
import { buildSelection } from "../predicate.ts";
import { writeContext, type RequestScope } from "../scope.ts";
import { parseDryRun } from "../write-options.ts";
import { withTypeMeta } from "./read.ts";

/** The DeleteOptions body as JSON, YAML or (from clients that prefer it) a protobuf envelope. */
function decodeDeleteOptions(s: RequestScope, bytes: Uint8Array): unknown {
  const base = (s.request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (base === s.profile.protobufMediaType) {
    try {
      const env = decodeEnvelope(bytes);
      return decodeMessage(messageLayout(deleteOptionsSchema, "DeleteOptions", { group: "meta", version: "v1" }), env.raw);
    } catch (err) {
      throw badRequest(`protobuf: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return decodeBody(bytes, base === "application/yaml" ? "yaml" : "json").value;
}

async function deleteOptions(s: RequestScope): Promise<DeleteRequest> {
  const opts: DeleteRequest = {};
  const bytes = await readBody(s.request, s.maxBodyBytes);
  if (bytes.byteLength > 0 && new TextDecoder().decode(bytes).trim() !== "") {
    const value = decodeDeleteOptions(s, bytes);
    if (!isObject(value)) throw badRequest("the DeleteOptions body must be an object");
    Object.assign(opts, deleteRequestFromObject(value));
  }
  const q = s.query;
  const grace = q.get("gracePeriodSeconds");
  if (grace !== null) {
    if (!/^-?\d+$/.test(grace)) throw badRequest(`invalid value for gracePeriodSeconds: "${grace}"`);
    opts.gracePeriodSeconds = Number(grace);
  }
  const policy = q.get("propagationPolicy");
  if (policy) opts.propagationPolicy = policy as DeleteRequest["propagationPolicy"];
  const orphan = parseBool(q.get("orphanDependents"));
  if (orphan !== undefined) opts.orphanDependents = orphan;
  if (parseDryRun(q)) opts.dryRun = true;
  if (parseBool(q.get("ignoreStoreReadErrorWithClusterBreakingPotential")) === true) opts.ignoreStoreReadErrorWithClusterBreakingPotential = true;
  return opts;
}

export async function handleDelete(s: RequestScope): Promise<Response> {
  const opts = await deleteOptions(s);
  validateDeleteOptions(opts, "DeleteOptions", "", s.profile.metaGroup);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) opts.authorizeUnsafeDelete = () => s.authorizeVerb?.(UNSAFE_DELETE_VERB) ?? Promise.resolve();
  const { object, deleted } = await deleteObject(s.registry, s.namespace, s.name as string, opts, writeContext(s, !!opts.dryRun));
  const status = !deleted && opts.orphanDependents === false ? 202 : 200;
  return respond(s, withTypeMeta(object, s), status, "object");
}

export async function handleDeleteCollection(s: RequestScope): Promise<Response> {
  const opts = await deleteOptions(s);
  const q = parseListQuery(s.query, false, s.profile.metaGroup);
  const selection = buildSelection(s.resource.def, q.labelSelector, q.fieldSelector);
  const list = await s.registry.list({ namespace: s.namespace, predicate: selection.predicate, hasSelector: selection.hasSelector });
  const items: JsonObject[] = [];
  for (const obj of list.items) {
    const m = meta(obj);
    try {
      const { object } = await deleteObject(s.registry, m.namespace, m.name as string, { ...opts, preconditions: undefined }, writeContext({ ...s, namespace: m.namespace }, !!opts.dryRun));
      items.push(withTypeMeta(object, s));
    } catch (err) {
      // Already gone by a concurrent delete: nothing to report for it.
      if (!(isObject(err) && (err as { status?: { code?: number } }).status?.code === 404)) throw err;
    }
  }
  const body = { kind: `${s.resource.kind}List`, apiVersion: s.resource.apiVersion, metadata: { resourceVersion: list.resourceVersion }, items };
  return respond(s, body, 200, "list");
}
