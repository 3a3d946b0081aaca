/**
 * The platform naming profile: derived names computed once from the tables in
 * names.ts. Services select a profile with `--profile plat|kubernetes`.
 */
import { GROUP_KEYS, KUBERNETES_NAMES, PLAT_NAMES, type GroupKey, type ProfileNames } from "./names.ts";

export type ProfileId = "plat" | "kubernetes";
export const PROFILE_IDS: readonly ProfileId[] = ["plat", "kubernetes"];

/** OpenAPI vendor extensions the schema emits, by logical name. */
export interface ExtensionNames {
  readonly listType: string;
  readonly listMapKeys: string;
  readonly mapType: string;
  readonly groupVersionKind: string;
  readonly preserveUnknownFields: string;
  readonly intOrString: string;
  readonly embeddedResource: string;
  readonly patchStrategy: string;
  readonly patchMergeKey: string;
  readonly unionDiscriminator: string;
  readonly validations: string;
  readonly action: string;
  readonly associatedOperation: string;
}

export interface PlatformProfile extends ProfileNames {
  readonly ext: ExtensionNames;
  /** `apiVersion` string for a group key and version (`v1` for core). */
  apiVersion(group: GroupKey, version: string): string;
  /** Wire group name for a logical key. */
  group(group: GroupKey): string;
  /** Logical key for a wire group name, or undefined when the group is not the platform's. */
  groupKey(wireGroup: string): GroupKey | undefined;
  /** The Table media-type parameter value `g=`. */
  readonly metaGroup: string;
  /** Namespaces that exist from the start. */
  readonly defaultNamespaces: readonly string[];
  /** OpenAPI definition name of a kind in a group version. */
  definitionName(group: GroupKey, version: string, kind: string): string;
}

function extensions(prefix: string): ExtensionNames {
  return {
    listType: `${prefix}list-type`,
    listMapKeys: `${prefix}list-map-keys`,
    mapType: `${prefix}map-type`,
    groupVersionKind: `${prefix}group-version-kind`,
    preserveUnknownFields: `${prefix}preserve-unknown-fields`,
    intOrString: `${prefix}int-or-string`,
    embeddedResource: `${prefix}embedded-resource`,
    patchStrategy: `${prefix}patch-strategy`,
    patchMergeKey: `${prefix}patch-merge-key`,
    unionDiscriminator: `${prefix}unions`,
    validations: `${prefix}validations`,
    action: `${prefix}action`,
    associatedOperation: `${prefix}associated-operation`,
  };
}

/** Openapi package segment of a group key (`rbac` → `rbac`, `core` → `core`). */
const OPENAPI_PACKAGE: Readonly<Partial<Record<GroupKey, string>>> = {
  rbac: "rbac",
  admissionregistration: "admissionregistration",
  apiextensions: "apiextensions",
};

/**
 * The key of a custom resource group (a CRD's `spec.group`): custom groups are not the
 * platform's, so their wire name serves as their key and the profile passes it through.
 */
export function customGroupKey(wireGroup: string): GroupKey {
  return wireGroup as GroupKey;
}

function build(names: ProfileNames): PlatformProfile {
  const byWire = new Map<string, GroupKey>();
  for (const key of GROUP_KEYS) byWire.set(names.groups[key], key);
  // Platform group keys map to their wire names; custom (CRD) group keys are wire names already.
  const wireOf = (g: GroupKey): string => (Object.prototype.hasOwnProperty.call(names.groups, g) ? names.groups[g] : g);
  const profile: PlatformProfile = {
    ...names,
    ext: extensions(names.extensionPrefix),
    metaGroup: names.groups.meta,
    defaultNamespaces: ["default", names.systemNamespace, names.publicNamespace, names.nodeLeaseNamespace],
    group: wireOf,
    groupKey: (wire) => byWire.get(wire),
    apiVersion: (g, version) => (wireOf(g) === "" ? version : `${wireOf(g)}/${version}`),
    definitionName: (g, version, kind) => {
      // Custom groups: the reversed domain, as the platform names CRD definitions (`com.example.v1.Kind`).
      if (!Object.prototype.hasOwnProperty.call(names.groups, g)) return `${g.split(".").reverse().join(".")}.${version}.${kind}`;
      if (g === "meta") return `${names.openapiMetaPrefix}.${version}.${kind}`;
      if (g === "apiextensions") return `${names.openapiApiPrefix.replace(/\.api$/, ".apiextensions-apiserver.pkg.apis")}.apiextensions.${version}.${kind}`;
      const pkg = OPENAPI_PACKAGE[g] ?? g;
      return `${names.openapiApiPrefix}.${pkg}.${version}.${kind}`;
    },
  };
  return Object.freeze(profile);
}

const PROFILES: Readonly<Record<ProfileId, PlatformProfile>> = {
  plat: build(PLAT_NAMES),
  kubernetes: build(KUBERNETES_NAMES),
};

export function getProfile(id: string = "plat"): PlatformProfile {
  if (id !== "plat" && id !== "kubernetes") {
    throw new Error(`unknown profile "${id}": expected one of ${PROFILE_IDS.join(", ")}`);
  }
  return PROFILES[id];
}

/** Reads `--profile` (or `--profile=`) from an argument list; default `plat`. */
export function profileFromArgs(argv: readonly string[]): PlatformProfile {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--profile") return getProfile(argv[i + 1]);
    if (arg.startsWith("--profile=")) return getProfile(arg.slice("--profile=".length));
  }
  return getProfile("plat");
}

export type { GroupKey, ProfileNames };
export { GROUP_KEYS };
