/**
 * Field changes of the Migration table (Part 2, Versioning), one function per kind
 * family. Each takes a document already moved to its new apiVersion, edits it in place
 * and adds a note for every change a reader should know of; what cannot be expressed in
 * the new version throws a `ConversionError` with the reason. The old version's
 * defaults are written out explicitly where the new version's defaults differ, so the
 * converted object behaves as the old one did.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";

export class ConversionError extends Error {}

export type Obj = Record<string, unknown>;

export interface TransformContext {
  profile: PlatformProfile;
  /** apiVersion of the document before conversion. */
  from: string;
  notes: string[];
}

export type Transform = (doc: Obj, ctx: TransformContext) => void;

function obj(v: unknown): Obj | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;
}

function child(o: Obj, key: string): Obj {
  const existing = obj(o[key]);
  if (existing) return existing;
  const made: Obj = {};
  o[key] = made;
  return made;
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? (v.filter((x) => obj(x)) as Obj[]) : [];
}

function rename(o: Obj, from: string, to: string, ctx: TransformContext, where: string): void {
  if (!(from in o)) return;
  if (!(to in o)) o[to] = o[from];
  delete o[from];
  ctx.notes.push(`${where}.${from} renamed to ${where}.${to}`);
}

/** flowcontrol: `assuredConcurrencyShares` → `nominalConcurrencyShares`; v1 keeps an explicit 0, so an unset or 0 (the old default) becomes 30. */
export const flowControl: Transform = (doc, ctx) => {
  if (doc.kind !== "PriorityLevelConfiguration") return;
  const spec = obj(doc.spec);
  const limited = spec ? obj(spec.limited) : undefined;
  if (!limited) return;
  rename(limited, "assuredConcurrencyShares", "nominalConcurrencyShares", ctx, "spec.limited");
  const target = ctx.profile.apiVersion("flowcontrol", "v1");
  if (doc.apiVersion === target && (limited.nominalConcurrencyShares === undefined || limited.nominalConcurrencyShares === 0)) {
    limited.nominalConcurrencyShares = 30;
    ctx.notes.push("spec.limited.nominalConcurrencyShares set to 30 (the old default; in v1 an explicit 0 stays 0)");
  }
};

function metricTarget(kind: "Utilization" | "AverageValue" | "Value", value: unknown): Obj {
  if (kind === "Utilization") return { type: kind, averageUtilization: value };
  if (kind === "AverageValue") return { type: kind, averageValue: value };
  return { type: kind, value };
}

/** autoscaling v2beta1 metric sources → v2 `metric` + `target`. */
export const hpa: Transform = (doc, ctx) => {
  if (ctx.from !== "autoscaling/v2beta1") return;
  const spec = obj(doc.spec);
  for (const m of list(spec?.metrics)) {
    const r = obj(m.resource);
    if (r && !r.target) {
      if (r.targetAverageUtilization !== undefined) r.target = metricTarget("Utilization", r.targetAverageUtilization);
      else if (r.targetAverageValue !== undefined) r.target = metricTarget("AverageValue", r.targetAverageValue);
      delete r.targetAverageUtilization;
      delete r.targetAverageValue;
    }
    const c = obj(m.containerResource);
    if (c && !c.target) {
      if (c.targetAverageUtilization !== undefined) c.target = metricTarget("Utilization", c.targetAverageUtilization);
      else if (c.targetAverageValue !== undefined) c.target = metricTarget("AverageValue", c.targetAverageValue);
      delete c.targetAverageUtilization;
      delete c.targetAverageValue;
    }
    const p = obj(m.pods);
    if (p && p.metricName !== undefined) {
      m.pods = { metric: { name: p.metricName, ...(p.selector ? { selector: p.selector } : {}) }, target: metricTarget("AverageValue", p.targetAverageValue) };
    }
    const o = obj(m.object);
    if (o && o.metricName !== undefined) {
      const target = o.averageValue !== undefined ? metricTarget("AverageValue", o.averageValue) : metricTarget("Value", o.targetValue);
      m.object = { describedObject: o.target, metric: { name: o.metricName, ...(o.selector ? { selector: o.selector } : {}) }, target };
    }
    const x = obj(m.external);
    if (x && x.metricName !== undefined) {
      const target = x.targetAverageValue !== undefined ? metricTarget("AverageValue", x.targetAverageValue) : metricTarget("Value", x.targetValue);
      m.external = { metric: { name: x.metricName, ...(x.metricSelector ? { selector: x.metricSelector } : {}) }, target };
    }
  }
  if (list(spec?.metrics).length > 0) ctx.notes.push("spec.metrics rewritten to metric/target form");
};

/** discovery v1beta1 → v1: per-endpoint `topology` becomes nodeName, zone and the read-only deprecatedTopology. */
export const endpointSlice: Transform = (doc, ctx) => {
  for (const ep of list(doc.endpoints)) {
    const topo = obj(ep.topology);
    if (!topo) continue;
    delete ep.topology;
    const rest: Obj = { ...topo };
    const host = topo[ctx.profile.labels.hostname];
    const zone = topo[ctx.profile.labels.zone];
    if (typeof host === "string" && ep.nodeName === undefined) {
      ep.nodeName = host;
      delete rest[ctx.profile.labels.hostname];
    }
    if (typeof zone === "string" && ep.zone === undefined) {
      ep.zone = zone;
      delete rest[ctx.profile.labels.zone];
    }
    if (Object.keys(rest).length > 0) ep.deprecatedTopology = rest;
    ctx.notes.push("endpoints[].topology moved to nodeName, zone and deprecatedTopology");
  }
};

/** policy v1beta1 → v1: an empty selector selected no pods and now selects all, so it is dropped (unset selects none). */
export const pdb: Transform = (doc, ctx) => {
  const spec = obj(doc.spec);
  const sel = spec ? obj(spec.selector) : undefined;
  if (spec && sel && Object.keys(sel).length === 0) {
    delete spec.selector;
    ctx.notes.push("spec.selector {} removed: in policy/v1 an empty selector selects every pod, an unset one none (the old meaning)");
  }
};

export const podSecurityPolicy: Transform = () => {
  throw new ConversionError("PodSecurityPolicy was removed with no replacement API: use pod security admission (namespace labels) or a third-party admission webhook");
};

const SIDE_EFFECTS = ["None", "NoneOnDryRun"];

/** admissionregistration v1beta1 → v1: the old defaults written out; sideEffects must be None or NoneOnDryRun; names unique. */
export const webhooks: Transform = (doc, ctx) => {
  const hooks = list(doc.webhooks);
  const names = new Set<string>();
  hooks.forEach((h, i) => {
    const name = String(h.name ?? "");
    if (names.has(name)) throw new ConversionError(`webhooks[${i}].name "${name}" is not unique, which v1 requires`);
    names.add(name);
    if (!SIDE_EFFECTS.includes(String(h.sideEffects ?? ""))) {
      throw new ConversionError(`webhooks[${i}].sideEffects is ${h.sideEffects === undefined ? "unset (Unknown in v1beta1)" : JSON.stringify(h.sideEffects)}: v1 requires None or NoneOnDryRun; set it to what the webhook does`);
    }
    const defaults: Array<[string, unknown]> = [
      ["failurePolicy", "Ignore"],
      ["matchPolicy", "Exact"],
      ["timeoutSeconds", 30],
      ["admissionReviewVersions", ["v1beta1"]],
    ];
    for (const [field, value] of defaults) {
      if (h[field] === undefined) {
        h[field] = value;
        ctx.notes.push(`webhooks[${i}].${field} set to ${JSON.stringify(value)} (the v1beta1 default)`);
      }
    }
  });
};

/** apiextensions v1beta1 → v1: per-version schema, subresources and columns, scope, conversion webhook and pruning. */
export const crd: Transform = (doc, ctx) => {
  const spec = child(doc, "spec");
  if (spec.scope === undefined) {
    spec.scope = "Namespaced";
    ctx.notes.push("spec.scope set to Namespaced (the v1beta1 default)");
  }
  let versions = list(spec.versions);
  if (versions.length === 0) {
    if (typeof spec.version !== "string") throw new ConversionError("spec.version or spec.versions is required");
    versions = [{ name: spec.version, served: true, storage: true }];
  }
  delete spec.version;
  const validation = obj(spec.validation);
  const subresources = obj(spec.subresources);
  const columns = Array.isArray(spec.additionalPrinterColumns) ? (spec.additionalPrinterColumns as Obj[]) : undefined;
  const keepUnknown = spec.preserveUnknownFields !== false;
  for (const v of versions) {
    const schema = obj(obj(v.schema)?.openAPIV3Schema) ?? obj(validation?.openAPIV3Schema);
    const root: Obj = schema ? { ...schema } : { type: "object" };
    if (!root.type) root.type = "object";
    if (keepUnknown) root[ctx.profile.ext.preserveUnknownFields] = true;
    v.schema = { openAPIV3Schema: root };
    if (v.subresources === undefined && subresources) v.subresources = subresources;
    const cols = Array.isArray(v.additionalPrinterColumns) ? (v.additionalPrinterColumns as Obj[]) : columns;
    if (cols) v.additionalPrinterColumns = cols.map((c) => renameKey(c, "JSONPath", "jsonPath"));
  }
  spec.versions = versions;
  delete spec.validation;
  delete spec.subresources;
  delete spec.additionalPrinterColumns;
  if (keepUnknown) ctx.notes.push(`spec.preserveUnknownFields is not allowed in v1: ${ctx.profile.ext.preserveUnknownFields} set on each version's schema root instead`);
  delete spec.preserveUnknownFields;
  const conversion = obj(spec.conversion);
  if (conversion && (conversion.webhookClientConfig || conversion.conversionReviewVersions)) {
    const webhook: Obj = { conversionReviewVersions: conversion.conversionReviewVersions ?? ["v1beta1"] };
    if (conversion.webhookClientConfig) webhook.clientConfig = conversion.webhookClientConfig;
    spec.conversion = { strategy: conversion.strategy ?? "Webhook", webhook };
  }
  ctx.notes.push("spec.version/validation/subresources/additionalPrinterColumns moved into spec.versions[]");
};

function renameKey(o: Obj, from: string, to: string): Obj {
  if (!(from in o)) return o;
  const out: Obj = { ...o, [to]: o[from] };
  delete out[from];
  return out;
}

/** authorization v1beta1 → v1: `spec.group` renamed `spec.groups`. */
export const accessReview: Transform = (doc, ctx) => {
  const spec = obj(doc.spec);
  if (spec) rename(spec, "group", "groups", ctx, "spec");
};

/** certificates v1beta1 → v1: signerName and usages required; legacy-unknown cannot be created. */
export const csr: Transform = (doc, ctx) => {
  const spec = child(doc, "spec");
  const legacy = `${ctx.profile.admission.signerPrefix}legacy-unknown`;
  if (spec.signerName === undefined || spec.signerName === legacy) {
    throw new ConversionError(`spec.signerName is ${spec.signerName === undefined ? "unset" : `"${legacy}"`}: v1 requires a signer that can be created (e.g. ${ctx.profile.admission.signerPrefix}kube-apiserver-client)`);
  }
  if (spec.usages === undefined) {
    spec.usages = ["digital signature", "key encipherment"];
    ctx.notes.push('spec.usages set to ["digital signature", "key encipherment"] (the v1beta1 default)');
  }
};

/** Ingress → networking v1: backend → defaultBackend, serviceName/servicePort → service.name/port, pathType required. */
export const ingress: Transform = (doc, ctx) => {
  const spec = obj(doc.spec);
  if (!spec) return;
  const backend = (b: Obj): Obj => {
    if (b.serviceName === undefined && b.servicePort === undefined) return b;
    const port = typeof b.servicePort === "number" || /^\d+$/.test(String(b.servicePort)) ? { number: Number(b.servicePort) } : { name: b.servicePort };
    const out: Obj = { service: { name: b.serviceName, port } };
    if (b.resource) out.resource = b.resource;
    return out;
  };
  if (spec.backend) {
    spec.defaultBackend = backend(obj(spec.backend) ?? {});
    delete spec.backend;
    ctx.notes.push("spec.backend renamed to spec.defaultBackend");
  }
  for (const rule of list(spec.rules)) {
    for (const p of list(obj(rule.http)?.paths)) {
      if (p.backend) p.backend = backend(obj(p.backend) ?? {});
      if (p.pathType === undefined) {
        p.pathType = "ImplementationSpecific";
        ctx.notes.push("rules[].http.paths[].pathType set to ImplementationSpecific (the v1beta1 default)");
      }
    }
  }
};

const KEEP_OLD_ROLLOUT = 2147483647;

/** Workloads → apps/v1: selector required (from the template's labels), removed fields dropped, old defaults written out. */
export const workload: Transform = (doc, ctx) => {
  const spec = child(doc, "spec");
  const from = ctx.from;
  if (spec.selector === undefined) {
    const labels = obj(obj(obj(spec.template)?.metadata)?.labels);
    if (!labels || Object.keys(labels).length === 0) throw new ConversionError("spec.selector is required in apps/v1 and the pod template has no labels to take it from");
    spec.selector = { matchLabels: { ...labels } };
    ctx.notes.push("spec.selector set from the pod template's labels (required and immutable in apps/v1)");
  }
  for (const removed of ["templateGeneration", "rollbackTo"]) {
    if (removed in spec) {
      delete spec[removed];
      ctx.notes.push(`spec.${removed} removed (not in apps/v1)`);
    }
  }
  const oldOnDelete = (doc.kind === "DaemonSet" && from === "extensions/v1beta1") || (doc.kind === "StatefulSet" && from === "apps/v1beta1");
  if (oldOnDelete) {
    const strategy = child(spec, "updateStrategy");
    if (strategy.type === undefined) {
      strategy.type = "OnDelete";
      ctx.notes.push("spec.updateStrategy.type set to OnDelete (the old default; apps/v1 defaults to RollingUpdate)");
    }
  }
  if (doc.kind === "Deployment" && from !== "apps/v1beta2") {
    const ext = from === "extensions/v1beta1";
    if (spec.revisionHistoryLimit === undefined) {
      spec.revisionHistoryLimit = ext ? KEEP_OLD_ROLLOUT : 2;
      ctx.notes.push(`spec.revisionHistoryLimit set to ${String(spec.revisionHistoryLimit)} (the ${from} default; apps/v1 defaults to 10)`);
    }
    if (ext && spec.progressDeadlineSeconds === undefined) {
      spec.progressDeadlineSeconds = KEEP_OLD_ROLLOUT;
      ctx.notes.push(`spec.progressDeadlineSeconds set to ${KEEP_OLD_ROLLOUT} (no deadline, the ${from} default; apps/v1 defaults to 600)`);
    }
    const strategy = obj(spec.strategy);
    if (ext && (strategy?.type === undefined || strategy.type === "RollingUpdate")) {
      const s = child(spec, "strategy");
      s.type ??= "RollingUpdate";
      const ru = child(s, "rollingUpdate");
      if (ru.maxSurge === undefined) ru.maxSurge = 1;
      if (ru.maxUnavailable === undefined) ru.maxUnavailable = 1;
      ctx.notes.push("spec.strategy.rollingUpdate maxSurge/maxUnavailable default to 1 in extensions/v1beta1 (25% in apps/v1): written out");
    }
  }
};
