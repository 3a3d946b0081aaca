/**
 * Conversions of the pre-release versions whose fields equal their storage version's
 * (shared/api/groups/pre-release-kinds.ts): networking/v1beta1 IPAddress and ServiceCIDR
 * and storage/v1beta1 and v1alpha1 VolumeAttributesClass, stored as v1;
 * admissionregistration/v1alpha1 MutatingAdmissionPolicy and its binding, stored as v1beta1.
 * Only `apiVersion` changes, both ways, without loss; managedFields entries keep the
 * version they were written in, as on the platform. Each names its storage kind, so a
 * replica that serves the pre-release version alone still stores the storage form.
 */
import { mutatingAdmissionPolicyKinds } from "../../../shared/api/groups/admissionregistration-v1beta1.ts";
import { builtinKinds } from "../../../shared/api/groups/index.ts";
import { mutatingAdmissionPolicyVersions, preReleaseKinds } from "../../../shared/api/groups/pre-release-kinds.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import type { JsonObject } from "../storage/object.ts";
import { conversionKey, type KindConversion, type VersionConverter } from "./conversion.ts";

/** A copy of `obj` whose apiVersion is `apiVersion` (kept in its place when present). */
function withApiVersion(obj: JsonObject, apiVersion: string): JsonObject {
  return "apiVersion" in obj ? { ...obj, apiVersion } : { apiVersion, ...obj };
}

function renaming(profile: PlatformProfile, served: KindDefinition, storage: KindDefinition): VersionConverter {
  const servedVersion = profile.apiVersion(served.group, served.version);
  const storageVersion = profile.apiVersion(storage.group, storage.version);
  return { toStorage: (o) => withApiVersion(o, storageVersion), fromStorage: (o) => withApiVersion(o, servedVersion) };
}

export function preReleaseConversions(profile: PlatformProfile): Array<[string, KindConversion]> {
  const storageKinds = [...builtinKinds(profile), ...mutatingAdmissionPolicyKinds];
  const byKind = new Map<string, { storageKind: KindDefinition; versions: Record<string, VersionConverter> }>();
  for (const def of [...preReleaseKinds, ...mutatingAdmissionPolicyVersions]) {
    const key = conversionKey(def.group, def.kind);
    let entry = byKind.get(key);
    if (!entry) {
      // The storage version: the GA one, else the beta.
      const storageKind = storageKinds.find((k) => k.group === def.group && k.kind === def.kind);
      if (!storageKind) throw new Error(`no storage version for ${key}`);
      entry = { storageKind, versions: {} };
      byKind.set(key, entry);
    }
    if (def.version !== entry.storageKind.version) entry.versions[def.version] = renaming(profile, def, entry.storageKind);
  }
  return [...byKind].map(([key, e]) => [key, { storageVersion: e.storageKind.version, storageKind: e.storageKind, versions: e.versions }]);
}
