/**
 * The served resources: one registry per kind, looked up by the wire group,
 * version and resource name of a request. Built once at start-up.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import type { ObjectStorage } from "../storage/interface.ts";
import { conversionKey, VersionView, type KindConversion } from "./conversion.ts";
import { kindConversions } from "./kind-conversions.ts";
import { Registry, type RegistryConversion, type RegistryOptions } from "./registry.ts";
import { resourceInfo, type ResourceInfo } from "./resource.ts";
import { genericStrategy, type Strategy } from "./strategy.ts";
import { AllocatingServiceStorage, serviceNetwork } from "./service-allocation.ts";
import { ipAddressLabels } from "./ip-address-labels.ts";
import { isEventKind } from "./event-strategy.ts";
import { ExpiringStorage } from "./expiring-storage.ts";

export interface ServedResource {
  resource: ResourceInfo;
  registry: Registry;
}

export interface GroupVersionEntry {
  group: string;
  version: string;
  resources: ServedResource[];
}

/** Versions in the platform's priority order: GA before beta before alpha, higher first. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const level = m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2;
    return [level, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  const [la, ma, na] = parse(a);
  const [lb, mb, nb] = parse(b);
  return la - lb || ma - mb || na - nb || a.localeCompare(b);
}

/**
 * The conversion of a served kind version whose kind has a storage version among the
 * served kinds: that version's strategy, and the converter (the served version's own
 * strategy validates its requests first when it is not the storage version).
 */
function conversionOf(
  def: KindDefinition,
  kinds: KindDefinition[],
  conversions: ReadonlyMap<string, KindConversion>,
  strategyFor: (def: KindDefinition) => Strategy,
): { storageDef: KindDefinition; storageStrategy: Strategy; registry: RegistryConversion } | undefined {
  const conversion = conversions.get(conversionKey(def.group, def.kind));
  const converter = conversion?.versions[def.version];
  const storageGroup = conversion?.storageGroup ?? def.group;
  const storageDef = conversion && (kinds.find((k) => k.group === storageGroup && k.kind === def.kind && k.version === conversion.storageVersion) ?? conversion.storageKind);
  if (!converter || !storageDef) return undefined;
  return { storageDef, storageStrategy: strategyFor(storageDef), registry: { view: new VersionView(converter), requestStrategy: storageDef === def ? undefined : strategyFor(def) } };
}

/** The storage of a kind: Services allocate their addresses and ports through theirs; Events expire after `eventTtlSeconds`. */
function storageFor(def: KindDefinition, storage: ObjectStorage, profile: PlatformProfile, options: RegistryOptions): ObjectStorage {
  if (isEventKind(def) && options.eventTtlSeconds) return new ExpiringStorage(storage, options.eventTtlSeconds);
  if (def.group !== "core" || def.plural !== "services") return storage;
  return new AllocatingServiceStorage(storage, options.serviceNetwork ?? serviceNetwork(), profile.apiVersion("networking", "v1"), ipAddressLabels(profile));
}

export class Catalog {
  private readonly byPath = new Map<string, ServedResource>();
  private readonly groupVersions = new Map<string, GroupVersionEntry>();

  /** Bumped by every `add` and `remove`: caches of documents built from the catalog compare it. */
  generation = 0;

  constructor(
    readonly profile: PlatformProfile,
    kinds: KindDefinition[],
    readonly storage: ObjectStorage,
    readonly options: RegistryOptions = {},
    strategyFor: (def: KindDefinition) => Strategy = genericStrategy,
    conversions: ReadonlyMap<string, KindConversion> = kindConversions(profile),
  ) {
    for (const def of kinds) {
      const conversion = conversionOf(def, kinds, conversions, strategyFor);
      // A converted kind lives under its storage version's keys (the same objects in every version).
      const resource = { ...resourceInfo(def, profile), ...(conversion && { keyPrefix: resourceInfo(conversion.storageDef, profile).keyPrefix }) };
      const strategy = conversion?.storageStrategy ?? strategyFor(def);
      const registry = new Registry(resource, strategy, storageFor(def, storage, profile, options), options, conversion?.registry);
      this.register({ resource, registry });
    }
  }

  private register(served: ServedResource): void {
    const { resource } = served;
    this.byPath.set(`${resource.group}/${resource.version}/${resource.plural}`, served);
    const gvKey = `${resource.group}/${resource.version}`;
    let gv = this.groupVersions.get(gvKey);
    if (!gv) {
      gv = { group: resource.group, version: resource.version, resources: [] };
      this.groupVersions.set(gvKey, gv);
    }
    gv.resources.push(served);
  }

  /** Serves a resource added at run time (custom resources); an entry at the same path is replaced. */
  add(served: ServedResource): void {
    this.removeEntry(served.resource.group, served.resource.version, served.resource.plural);
    this.register(served);
    this.generation++;
  }

  /** Stops serving a resource added at run time; false when it was not served. */
  remove(group: string, version: string, plural: string): boolean {
    const removed = this.removeEntry(group, version, plural);
    if (removed) this.generation++;
    return removed;
  }

  private removeEntry(group: string, version: string, plural: string): boolean {
    const path = `${group}/${version}/${plural}`;
    const served = this.byPath.get(path);
    if (!served) return false;
    this.byPath.delete(path);
    const gvKey = `${group}/${version}`;
    const gv = this.groupVersions.get(gvKey);
    if (gv) {
      gv.resources = gv.resources.filter((r) => r !== served);
      if (gv.resources.length === 0) this.groupVersions.delete(gvKey);
    }
    return true;
  }

  /** The kind definitions of every served resource, in registration order. */
  kinds(): KindDefinition[] {
    return [...this.byPath.values()].map((s) => s.resource.def);
  }

  lookup(group: string, version: string, plural: string): ServedResource | undefined {
    return this.byPath.get(`${group}/${version}/${plural}`);
  }

  /** The served resource of a group key and plural in its preferred version. */
  preferred(group: string, plural: string): ServedResource | undefined {
    const versions = this.versionsOf(group);
    for (const v of versions) {
      const r = this.lookup(group, v, plural);
      if (r) return r;
    }
    return undefined;
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.groupVersions.has(`${group}/${version}`);
  }

  groupVersion(group: string, version: string): GroupVersionEntry | undefined {
    return this.groupVersions.get(`${group}/${version}`);
  }

  /** Groups other than core, in a stable order (registration order). */
  groups(): string[] {
    const out: string[] = [];
    for (const gv of this.groupVersions.values()) if (gv.group !== "" && !out.includes(gv.group)) out.push(gv.group);
    return out;
  }

  versionsOf(group: string): string[] {
    const versions: string[] = [];
    for (const gv of this.groupVersions.values()) if (gv.group === group) versions.push(gv.version);
    return versions.sort(compareVersions);
  }

  all(): ServedResource[] {
    return [...this.byPath.values()];
  }
}
