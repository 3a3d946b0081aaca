/**
 * PodNodeSelector (default off): a pod created in a namespace gets the namespace's
 * node selector (its node-selector annotation, else the configured
 * `clusterDefaultNodeSelector`) merged into `spec.nodeSelector` (a conflicting pod
 * value is refused), and its selector must stay within the namespace's whitelist
 * from the plugin configuration (`podNodeSelectorPluginConfig: {<namespace>: "k=v,..."}`).
 */
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, PluginContext, PluginFactory } from "../interfaces.ts";
import { admissionForbidden, annotationsOf, child, getFresh, isResource, obj, str } from "./util.ts";

export const POD_NODE_SELECTOR_PLUGIN = "PodNodeSelector";
export const CONFLICT = "pod node label selector conflicts with its namespace node label selector";
export const NOT_WHITELISTED = "pod node label selector labels conflict with its namespace whitelist";

/** Parses `k=v,k2=v2` (the platform's ConvertSelectorToLabelsMap); throws on a malformed pair. */
export function parseSelectorMap(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text.trim() === "") return out;
  for (const part of text.split(",")) {
    const kv = part.trim().split("=");
    if (kv.length !== 2 || kv[0].trim() === "") throw new Error(`invalid selector: ${JSON.stringify(text)}`);
    out[kv[0].trim()] = kv[1].trim();
  }
  return out;
}

export function conflicts(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.entries(a).some(([k, v]) => k in b && b[k] !== v);
}

export function inWhitelist(selector: Record<string, string>, whitelist: Record<string, string>): boolean {
  if (Object.keys(whitelist).length === 0) return true;
  return Object.entries(selector).every(([k, v]) => whitelist[k] === v);
}

class PodNodeSelectorPlugin implements AdmissionPlugin {
  readonly name = POD_NODE_SELECTOR_PLUGIN;
  private readonly clusterDefault: string;
  private readonly whitelists: Map<string, Record<string, string>>;

  constructor(private readonly ctx: PluginContext) {
    const cfg = obj(ctx.config?.podNodeSelectorPluginConfig) ?? {};
    this.clusterDefault = str(cfg.clusterDefaultNodeSelector);
    parseSelectorMap(this.clusterDefault);
    this.whitelists = new Map(Object.entries(cfg).filter(([k]) => k !== "clusterDefaultNodeSelector").map(([k, v]) => [k, parseSelectorMap(str(v))]));
  }

  handles(op: string): boolean {
    return op === "CREATE" || op === "UPDATE";
  }

  private async namespaceSelector(namespace: string): Promise<Record<string, string>> {
    const ns = await getFresh(this.ctx.objects, { group: "", resource: "namespaces", name: namespace });
    const ann = annotationsOf(ns);
    const key = this.ctx.profile.admission.nodeSelectorAnnotation;
    return parseSelectorMap(key in ann ? ann[key] : this.clusterDefault);
  }

  async admit(a: Parameters<NonNullable<AdmissionPlugin["admit"]>>[0]): Promise<void> {
    if (a.operation !== "CREATE" || !isResource(a, "", "pods") || !a.object) return;
    const spec = child(a.object, "spec");
    const podSel = (obj(spec.nodeSelector) ?? {}) as Record<string, string>;
    const nsSel = await this.namespaceSelector(a.namespace);
    if (conflicts(nsSel, podSel)) throw admissionForbidden(a, CONFLICT);
    const merged = { ...nsSel, ...podSel };
    if (Object.keys(merged).length > 0) spec.nodeSelector = merged;
  }

  async validate(a: Parameters<NonNullable<AdmissionPlugin["validate"]>>[0]): Promise<void> {
    if (!isResource(a, "", "pods") || !a.object) return;
    const podSel = (obj(obj(a.object.spec)?.nodeSelector) ?? {}) as JsonObject as Record<string, string>;
    if (conflicts(await this.namespaceSelector(a.namespace), podSel)) throw admissionForbidden(a, CONFLICT);
    if (!inWhitelist(podSel, this.whitelists.get(a.namespace) ?? {})) throw admissionForbidden(a, NOT_WHITELISTED);
  }
}

export const podNodeSelectorPlugin: PluginFactory = (ctx) => new PodNodeSelectorPlugin(ctx);
