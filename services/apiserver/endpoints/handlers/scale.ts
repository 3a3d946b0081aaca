/**
 * The scale subresource (`autoscaling/v1` Scale) of workloads: get, update and patch
 * act on the parent's replica count through the kind's scale mapping.
 */
import { labelSelectorFromObject } from "../../../../shared/api/selectors.ts";
import { badRequest, conflict, notFound } from "../../../../shared/api/status.ts";
import { scaleKindSchema } from "../../../../shared/api/groups/autoscaling-v1.ts";
import type { ScaleMapping } from "../../../../shared/schema/types.ts";
import { validateScaleSpec } from "../../registry/scale-validation.ts";
import { isObject, meta, type JsonObject } from "../../storage/object.ts";
import { bodyFormat, decodeBody, readBody } from "../body.ts";
import { respond } from "../encode.ts";
import { writeContext, type RequestScope } from "../scope.ts";
import { parseDryRun } from "../write-options.ts";
import { PATCH_TYPES } from "./patch.ts";
import { cloneValue } from "../../../../shared/schema/values.ts";

function at(obj: JsonObject, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.replace(/^\./, "").split(".")) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function setAt(obj: JsonObject, path: string, value: unknown): void {
  const parts = path.replace(/^\./, "").split(".");
  let cur: JsonObject = obj;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(cur[part])) cur[part] = {};
    cur = cur[part] as JsonObject;
  }
  cur[parts[parts.length - 1]] = value;
}

export function toScale(obj: JsonObject, mapping: ScaleMapping, scaleApiVersion: string): JsonObject {
  const m = meta(obj);
  const selectorValue = mapping.labelSelectorPath ? at(obj, mapping.labelSelectorPath) : undefined;
  let selector = typeof selectorValue === "string" ? selectorValue : undefined;
  if (selector === undefined && isObject(at(obj, ".spec.selector"))) {
    selector = labelSelectorFromObject(at(obj, ".spec.selector") as Parameters<typeof labelSelectorFromObject>[0]).toString();
  }
  const status: JsonObject = { replicas: Number(at(obj, mapping.statusReplicasPath) ?? 0) };
  if (selector) status.selector = selector;
  return {
    kind: "Scale",
    apiVersion: scaleApiVersion,
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: Number(at(obj, mapping.specReplicasPath) ?? 0) },
    status,
  };
}

export async function handleScale(s: RequestScope): Promise<Response> {
  const mapping = s.resource.def.scale;
  if (!mapping) throw notFound(`${s.resource.plural}/scale`, s.name ?? "", s.resource.group);
  const scaleApiVersion = s.profile.apiVersion("autoscaling", "v1");
  const name = s.name as string;
  if (s.verb === "get") {
    const obj = await s.registry.get(s.namespace, name, s.query.get("resourceVersion") ?? undefined);
    return respond(s, toScale(obj, mapping, scaleApiVersion), 200, "other");
  }
  const dryRun = parseDryRun(s.query);
  const body = await readBody(s.request, s.maxBodyBytes);
  const { object } = await s.registry.update(
    s.namespace,
    name,
    async (current) => {
      if (!current) throw notFound(s.resource.plural, name, s.resource.group);
      const currentScale = toScale(current, mapping, scaleApiVersion);
      let desired: JsonObject;
      if (s.verb === "patch") {
        const contentType = (s.request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
        const patchType = PATCH_TYPES.get(contentType);
        if (!patchType) throw badRequest(`unsupported patch type ${contentType} for the scale subresource`);
        desired = await patchType.patch({ ...s, resource: { ...s.resource, def: { ...s.resource.def, schema: scaleKindSchema } } }, body, currentScale);
      } else {
        const { value } = decodeBody(body, bodyFormat(s.request.headers.get("content-type"), { "application/json": "json", "application/yaml": "yaml" }));
        if (!isObject(value)) throw badRequest("the Scale body must be an object");
        desired = value;
      }
      const rv = meta(desired).resourceVersion;
      if (rv && rv !== meta(current).resourceVersion) throw conflict(s.resource.plural, name, s.resource.group);
      const replicas = (desired.spec as JsonObject | undefined)?.replicas;
      if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
        throw s.registry.invalid(name, [{ type: "FieldValueInvalid", field: "spec.replicas", value: replicas, message: "must be greater than or equal to 0" }]);
      }
      const strategy = s.registry.strategy;
      const errors = strategy.validateScale ? strategy.validateScale(desired, currentScale) : validateScaleSpec(desired);
      if (errors.length > 0) throw s.registry.invalid(name, errors);
      const next = cloneValue(current);
      setAt(next, mapping.specReplicasPath, replicas);
      return next;
    },
    { ...writeContext(s, dryRun), subresource: undefined },
  );
  return respond(s, toScale(object, mapping, scaleApiVersion), 200, "other");
}
