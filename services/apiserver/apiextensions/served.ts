/**
 * The served resources of a CRD: one registry per served version, all over the
 * storage version's form (conversion `None`: only `apiVersion` changes). Every
 * object leaving a registry is defaulted with its version's schema (defaulting
 * on read), and a request in a version other than the storage version is first
 * validated by that version's own strategy. Conversion `Webhook` is not implemented:
 * only the storage version's objects are served through it (see webhookConverter).
 */
import { statusError } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { applyDefaults } from "../../../shared/schema/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import type { ServedResource } from "../registry/catalog.ts";
import { VersionView, type VersionConverter } from "../registry/conversion.ts";
import { Registry, type RegistryOptions } from "../registry/registry.ts";
import { resourceInfo } from "../registry/resource.ts";
import type { Strategy } from "../registry/strategy.ts";
import type { ObjectStorage, Watcher } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";
import { CelRules } from "./cel-rules.ts";
import { crdVersions, kindDefinition } from "./kind-def.ts";
import { customResourceStrategy, type CrdState } from "./strategy.ts";

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function withApiVersion(obj: JsonObject, apiVersion: string): JsonObject {
  const out = structuredClone(obj);
  out.apiVersion = apiVersion;
  return out;
}

/** A version view whose watches end when the CRD stops being served (state.watchers). */
class CrdVersionView extends VersionView {
  constructor(
    converter: VersionConverter,
    private readonly state: CrdState,
  ) {
    super(converter);
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
 * Conversion `Webhook` is not implemented: objects in the storage version pass, any
 * other version is a 500 Status naming the conversion, never a silently wrong object.
 */
function webhookConverter(def: KindDefinition, storageApiVersion: string, profile: PlatformProfile): VersionConverter {
  const none = noneConverter(def, storageApiVersion, profile);
  const apiVersion = profile.apiVersion(def.group, def.version);
  const fail = (to: string): never => {
    throw statusError({ code: 500, reason: "InternalError", message: `conversion webhook for ${to}, Kind=${def.kind} failed: conversion webhooks are not supported by this server` });
  };
  return {
    toStorage: (obj) => (obj.apiVersion === storageApiVersion || apiVersion === storageApiVersion ? none.toStorage(obj) : fail(storageApiVersion)),
    fromStorage: (obj) => (obj.apiVersion === apiVersion ? none.fromStorage(obj) : fail(apiVersion)),
  };
}

/** A converter between a served version and the storage version (strategy None). */
function noneConverter(def: KindDefinition, storageApiVersion: string, profile: PlatformProfile): VersionConverter {
  const apiVersion = profile.apiVersion(def.group, def.version);
  return {
    toStorage: (obj) => withApiVersion(obj, storageApiVersion),
    fromStorage: (obj) => applyDefaults(def.schema, withApiVersion(obj, apiVersion)) as JsonObject,
  };
}

/** The served resources of `crd` (empty when it has no storage version). */
export function servedResources(crd: JsonObject, profile: PlatformProfile, storage: ObjectStorage, options: RegistryOptions, state: CrdState = { terminating: false }): ServedResource[] {
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
  const conversion = isObj(crd.spec) && isObj(crd.spec.conversion) ? crd.spec.conversion : {};
  const webhook = conversion.strategy === "Webhook";
  const out: ServedResource[] = [];
  for (const v of versions) {
    if (!v.served) continue;
    const own = v === storageVersion ? stored : strategyOf(v);
    const resource = resourceInfo(own.def, profile);
    const converter = webhook ? webhookConverter(own.def, storageApiVersion, profile) : noneConverter(own.def, storageApiVersion, profile);
    const view = new CrdVersionView(converter, state);
    const registry = new Registry(resource, stored.strategy, storage, options, { view, requestStrategy: v === storageVersion ? undefined : own.strategy });
    out.push({ resource, registry });
  }
  return out;
}
