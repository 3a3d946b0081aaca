/**
 * core/v1 (the legacy group served at /api/v1): assembles the kinds declared
 * in the core-v1-*.ts files. Kinds that use platform names (well-known labels,
 * secret types, node role labels) are built from a profile: `coreV1Kinds(profile)`;
 * `kinds` is the list for the default profile.
 */
import { getProfile, type PlatformProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { configMapKind, namespaceKind, secretKind, serviceAccountKind } from "./core-v1-config.ts";
import { eventKind } from "./core-v1-event.ts";
import { limitRangeKind, resourceQuotaKind } from "./core-v1-quota.ts";
import { nodeKind } from "./core-v1-node.ts";
import { endpointsKind, serviceKind } from "./core-v1-service.ts";
import { persistentVolumeClaimKind, persistentVolumeKind } from "./core-v1-storage.ts";
import { bindingKind, podKind, podTemplateKind, replicationControllerKind } from "./core-v1-workloads.ts";

export function coreV1Kinds(profile: PlatformProfile): KindDefinition[] {
  return [
    namespaceKind(profile),
    podKind,
    bindingKind,
    podTemplateKind,
    replicationControllerKind,
    serviceKind,
    endpointsKind,
    configMapKind,
    secretKind(profile),
    serviceAccountKind,
    nodeKind(profile),
    eventKind,
    persistentVolumeKind,
    persistentVolumeClaimKind,
    limitRangeKind,
    resourceQuotaKind,
  ];
}

export const kinds: KindDefinition[] = coreV1Kinds(getProfile());

// Named shared schemas, for other groups (workload templates, storage, events...).
export * from "./core-v1-common.ts";
export * from "./core-v1-container.ts";
export * from "./core-v1-volume.ts";
export * from "./core-v1-pod.ts";
export * from "./core-v1-node.ts";
export * from "./core-v1-service.ts";
export * from "./core-v1-storage.ts";
export * from "./core-v1-config.ts";
export * from "./core-v1-event.ts";
export * from "./core-v1-quota.ts";
export * from "./core-v1-workloads.ts";
export * from "./core-v1-proto.ts";
