/**
 * The served resources of a CRD: one registry per served version, all over the
 * storage version's form (conversion `None`: only `apiVersion` changes). Every
 * object leaving a registry is defaulted with its version's schema (defaulting
 * on read), and a request in a version other than the storage version is first
 * validated by that version's own strategy. With conversion `Webhook`, every object
 * not in the wanted version goes through the CRD's conversion webhook
 * (webhook-converter.ts), then is pruned and defaulted by the wanted version's schema;
 * callers that cannot wait (matchPolicy Equivalent) get a 500 Status for such objects.
 */
import { statusError } from "../../../shared/api/status.ts";
import type { WebhookClient } from "../admission/webhooks/client.ts";
import type { ConversionMetrics } from "./conversion-metrics.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { applyDefaults } from "../../../shared/schema/index.ts";
import { prune } from "../../../shared/schema/prune.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import type { ServedResource } from "../registry/catalog.ts";
import { VersionView, type RemoteVersionConverter, type VersionConverter } from "../registry/conversion.ts";
import { Registry, type RegistryOptions } from "../registry/registry.ts";
import { resourceInfo } from "../registry/resource.ts";
import type { Strategy } from "../registry/strategy.ts";
import type { ObjectStorage, Watcher } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";
import { CelRules } from "./cel-rules.ts";
import { crdVersions, kindDefinition } from "./kind-def.ts";
import { customResourceStrategy, type CrdState } from "./strategy.ts";
import { conversionWebhookConfig, WebhookConverter } from "./webhook-converter.ts";
import { withDefaults } from "./write-plan.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `obj` in `apiVersion`: a deep copy, or `obj` itself when it is in that version already (the storage version's registry hands objects on). */
function toVersion(obj: JsonObject, apiVersion: string): JsonObject {
  if (obj.apiVersion === apiVersion) return obj;
  const out = cloneValue(obj);
  out.apiVersion = apiVersion;
  return out;
}

/**
 * `obj` in `apiVersion`, defaulted by `def`'s schema. In that version already, it is
 * copied on write (`obj` itself when it has every default, as an object written through
 * the same schema has; else new objects only along the paths to the defaults set);
 * in another version, a deep copy (the defaulting's own).
 */
function defaultedIn(def: KindDefinition, obj: JsonObject, apiVersion: string): JsonObject {
  if (obj.apiVersion === apiVersion) return withDefaults(def.schema, obj) as JsonObject;
  return applyDefaults(def.schema, { ...obj, apiVersion }) as JsonObject;
}

/** A version view whose watches end when the CRD stops being served (state.watchers). */
class CrdVersionView extends VersionView {
  constructor(
    converter: VersionConverter,
    private readonly state: CrdState,
    remote?: RemoteVersionConverter,
  ) {
    super(converter, remote);
  }

  override watcher(inner: Watcher): Watcher {
    const outer = super.watcher(inner);
    const watchers = (this.state.watchers ??= new Set());
    const entry = { stop: () => outer.stop() };
    watchers.add(entry);
    return {
      next: async () => {
        const ev = await outer.next();
        if (!ev) watchers.delete(entry);
        return ev;
      },
      stop: () => {
        watchers.delete(entry);
        outer.stop();
      },
      get closedReason() {
        return outer.closedReason;
      },
    };
  }
}

/**
 * The sync side of a webhook-converted version: objects already in the wanted version
 * pass; any other is a 500 Status naming the conversion, never a silently wrong object.
 */
function webhookOnlyConverter(def: KindDefinition, storageApiVersion: string, profile: PlatformProfile): VersionConverter {
  const none = noneConverter(def, storageApiVersion, profile);
  const apiVersion = profile.apiVersion(def.group, def.version);
  const fail = (obj: JsonObject): never => {
    throw statusError({ code: 500, reason: "", message: `conversion webhook for ${String(obj.apiVersion)}, Kind=${def.kind} failed: this caller cannot wait for a conversion webhook` });
  };
  return {
    toStorage: (obj) => (obj.apiVersion === storageApiVersion || apiVersion === storageApiVersion ? none.toStorage(obj) : fail(obj)),
    fromStorage: (obj) => (obj.apiVersion === apiVersion ? none.fromStorage(obj) : fail(obj)),
  };
}

/** The remote side of a webhook-converted version: the webhook, then the wanted version's pruning and defaulting on read. */
function remoteConverter(webhook: WebhookConverter, def: KindDefinition, storageApiVersion: string, profile: PlatformProfile): RemoteVersionConverter {
  const apiVersion = profile.apiVersion(def.group, def.version);
  const typed = (objs: readonly JsonObject[], fallback: string): JsonObject[] => objs.map((o) => (typeof o.apiVersion === "string" ? o : { ...o, apiVersion: fallback }));
  return {
    toStorage: async (objs) => webhook.convert(typed(objs, apiVersion), storageApiVersion),
    fromStorage: async (objs) => {
      const converted = await webhook.convert(typed(objs, storageApiVersion), apiVersion);
      return converted.map((o) => applyDefaults(def.schema, prune(def.schema, cloneValue(o)).value as JsonObject) as JsonObject);
    },
  };
}

/** A converter between a served version and the storage version (strategy None). */
function noneConverter(def: KindDefinition, storageApiVersion: string, profile: PlatformProfile): VersionConverter {
  const apiVersion = profile.apiVersion(def.group, def.version);
  return {
    toStorage: (obj) => toVersion(obj, storageApiVersion),
    fromStorage: (obj) => defaultedIn(def, obj, apiVersion),
  };
}

/** The served resources of `crd` (empty when it has no storage version). */
export function servedResources(
  crd: JsonObject,
  profile: PlatformProfile,
  storage: ObjectStorage,
  options: RegistryOptions,
  state: CrdState = { terminating: false },
  conversion?: { client: WebhookClient; metrics?: ConversionMetrics },
): ServedResource[] {
  const versions = crdVersions(crd);
  const storageVersion = versions.find((v) => v.storage);
  if (!storageVersion) return [];
  const strategyOf = (v: (typeof versions)[number]): { def: KindDefinition; strategy: Strategy } => {
    const def = kindDefinition(crd, v, profile);
    const schema = isObj(v.raw.schema) ? v.raw.schema.openAPIV3Schema : undefined;
    return { def, strategy: customResourceStrategy(def, CelRules.of(schema, profile.ext), state) };
  };
  const stored = strategyOf(storageVersion);
  const storageApiVersion = profile.apiVersion(stored.def.group, stored.def.version);
  const webhookConfig = conversionWebhookConfig(crd);
  const crdName = isObj(crd.metadata) && typeof crd.metadata.name === "string" ? crd.metadata.name : "";
  const observed = conversion?.metrics ? { crdName, metrics: conversion.metrics } : undefined;
  const webhook = webhookConfig && conversion ? new WebhookConverter(conversion.client, profile.group("apiextensions"), webhookConfig, observed) : undefined;
  const out: ServedResource[] = [];
  for (const v of versions) {
    if (!v.served) continue;
    const own = v === storageVersion ? stored : strategyOf(v);
    const resource = resourceInfo(own.def, profile);
    const view = webhookConfig
      ? new CrdVersionView(webhookOnlyConverter(own.def, storageApiVersion, profile), state, webhook && remoteConverter(webhook, own.def, storageApiVersion, profile))
      : new CrdVersionView(noneConverter(own.def, storageApiVersion, profile), state);
    const registry = new Registry(resource, stored.strategy, storage, options, { view, requestStrategy: v === storageVersion ? undefined : own.strategy });
    out.push({ resource, registry });
  }
  return out;
}
