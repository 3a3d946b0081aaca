/**
 * Create-only actions on pods that change stored objects: `pods/{name}/eviction`
 * (policy/v1 Eviction: the disruption budget is spent through a compare-and-swap on
 * the PodDisruptionBudget, then the pod is deleted with the Eviction's deleteOptions),
 * `pods/{name}/binding` and the namespaced `bindings` collection (core/v1 Binding: the
 * pod's `spec.nodeName` is set once through a compare-and-swap on the pod). Both answer
 * 201 with a Success Status, as the platform does. The rules are pure cores in the
 * registry (eviction-budget.ts, pod-binding.ts); this file reads the body and does I/O.
 */
import { badRequest, isStatusError, notFound } from "../../../../shared/api/status.ts";
import { evictionKind } from "../../../../shared/api/groups/policy-v1.ts";
import { bindingKind } from "../../../../shared/api/groups/core-v1-workloads.ts";
import type { KindDefinition } from "../../../../shared/schema/types.ts";
import type { Catalog } from "../../registry/catalog.ts";
import { deleteObject, deleteRequestFromObject, type DeleteRequest } from "../../registry/deletion.ts";
import { budgetPending, decrementBudget, MULTIPLE_BUDGETS_MESSAGE, planEviction } from "../../registry/eviction-budget.ts";
import { bindPod, validateBinding } from "../../registry/pod-binding.ts";
import type { Registry } from "../../registry/registry.ts";
import { timestamp } from "../../registry/system-meta.ts";
import { isObject, meta, type JsonObject } from "../../storage/object.ts";
import { readBody } from "../body.ts";
import { respond } from "../encode.ts";
import { writeContext, type RequestScope } from "../scope.ts";
import { parseDryRun } from "../write-options.ts";
import { decodeObjectBody } from "./decode-object.ts";

/** A handler that needs other resources of the catalog than the request's own. */
export type CatalogHandler = (s: RequestScope, catalog: Catalog) => Promise<Response>;

/** Attempts of an eviction that loses a race on the pod (the platform retries conflicts too). */
const EVICTION_ATTEMPTS = 5;

/** The request body as `kind`, whose apiVersion (one of `versions`, or none) and kind must be the action's. */
async function readActionBody(s: RequestScope, kind: KindDefinition, versions: string[]): Promise<JsonObject> {
  const bytes = await readBody(s.request, s.maxBodyBytes);
  const scope = { ...s, resource: { ...s.resource, def: kind } };
  const { value } = decodeObjectBody(scope, s.request.headers.get("content-type"), bytes);
  if (!isObject(value)) throw badRequest(`the ${kind.kind} body must be an object`);
  if (value.apiVersion !== undefined && !versions.includes(String(value.apiVersion))) {
    throw badRequest(`the API version in the data (${String(value.apiVersion)}) does not match the expected API version (${versions[0]})`);
  }
  if (value.kind !== undefined && value.kind !== kind.kind) {
    throw badRequest(`${String(value.kind)} in version "${kind.version}" cannot be handled as a ${kind.kind}: the kind in the data (${String(value.kind)}) does not match the expected kind (${kind.kind})`);
  }
  const ns = meta(value).namespace;
  if (ns && s.namespace && ns !== s.namespace) throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  return value;
}

/** `{status: Success, code: 201}`: what an accepted eviction or binding answers. */
function created(s: RequestScope): Response {
  return respond(s, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 }, 201, "other");
}

/** The DeleteOptions of an Eviction body (the query's dryRun joins its own). */
function evictionDeleteOptions(body: JsonObject, queryDryRun: boolean): DeleteRequest {
  const opts = deleteRequestFromObject(isObject(body.deleteOptions) ? body.deleteOptions : {});
  opts.dryRun = queryDryRun || !!opts.dryRun;
  return opts;
}

function podsOf(catalog: Catalog): Registry {
  const pods = catalog.lookup("", "v1", "pods");
  if (!pods) throw notFound("pods", "");
  return pods.registry;
}

/** POST pods/{name}/eviction. */
export async function handleEviction(s: RequestScope, catalog: Catalog): Promise<Response> {
  const name = s.name as string;
  const versions = ["v1", "v1beta1"].map((v) => s.profile.apiVersion("policy", v));
  const body = await readActionBody(s, evictionKind, versions);
  if (meta(body).name !== name) throw badRequest("name in URL does not match name in Eviction object");
  const opts = evictionDeleteOptions(body, parseDryRun(s.query));
  const userPinned = !!opts.preconditions?.resourceVersion;
  const ctx = { ...writeContext(s, !!opts.dryRun), subresource: undefined };
  const budgets = catalog.lookup(s.profile.group("policy"), "v1", "poddisruptionbudgets")?.registry;
  for (let attempt = 1; ; attempt++) {
    const pod = await s.registry.get(s.namespace, name);
    const listed = budgets ? (await budgets.list({ namespace: s.namespace })).items : [];
    const plan = planEviction(pod, listed);
    if (plan.action === "ambiguous") {
      return respond(s, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: MULTIPLE_BUDGETS_MESSAGE, code: 500 }, 500, "other");
    }
    let pin = false;
    if (plan.action === "spend" && budgets) {
      await budgets.update(
        s.namespace,
        plan.budget,
        (current) => {
          if (!current) throw notFound("poddisruptionbudgets", plan.budget, s.profile.group("policy"));
          return decrementBudget(current, name, timestamp(budgets.now()), !!opts.dryRun);
        },
        { ...ctx, subresource: "status" },
      );
    } else if (plan.action === "delete") {
      pin = plan.pinResourceVersion && !userPinned;
    }
    const deletion: DeleteRequest = pin ? { ...opts, preconditions: { ...opts.preconditions, resourceVersion: meta(pod).resourceVersion } } : opts;
    try {
      await deleteObject(s.registry, s.namespace, name, deletion, ctx);
      return created(s);
    } catch (err) {
      // The pod changed since the decision: decide again (a budget-guarded decision answers 429 instead).
      if (!pin || !isStatusError(err, "Conflict")) throw err;
      if (plan.action === "delete" && plan.budget) throw budgetPending(plan.budget);
      if (attempt >= EVICTION_ATTEMPTS) throw err;
    }
  }
}

/** Sets the pod's node from a Binding whose name is `podName`. */
async function bind(s: RequestScope, pods: Registry, podName: string, binding: JsonObject): Promise<Response> {
  if (!podName) throw badRequest("Name parameter required.");
  validateBinding(binding);
  const dryRun = parseDryRun(s.query);
  try {
    await pods.storage.guaranteedUpdate(pods.key(s.namespace, podName), (current) => (current ? bindPod(current, binding, timestamp(pods.now())) : undefined), { dryRun });
  } catch (err) {
    pods.fail(err, podName);
  }
  return created(s);
}

/** POST pods/{name}/binding. */
export async function handleBinding(s: RequestScope): Promise<Response> {
  const binding = await readActionBody(s, bindingKind, [s.profile.apiVersion("core", "v1")]);
  if (meta(binding).name !== s.name) throw badRequest("name in URL does not match name in Binding object");
  return bind(s, s.registry, s.name as string, binding);
}

/** POST namespaces/{ns}/bindings: the pod is the Binding's own name. */
export async function handleBindings(s: RequestScope, catalog: Catalog): Promise<Response> {
  const binding = await readActionBody(s, bindingKind, [s.profile.apiVersion("core", "v1")]);
  return bind(s, podsOf(catalog), meta(binding).name ?? "", binding);
}

/** Create-only pod subresources served here, by name. */
export const POD_ACTION_SUBRESOURCES: Readonly<Record<string, CatalogHandler>> = { eviction: handleEviction, binding: handleBinding };
