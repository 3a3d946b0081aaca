/**
 * The built-in admission plugins of this folder, by their registered name. The
 * chain registers them all (`registerBuiltinPlugins`); which ones run is decided by
 * the default-on set and the flags (../order.ts, ../plugins.ts).
 */
import type { PluginFactory } from "../interfaces.ts";
import type { PluginRegistry } from "../plugins.ts";
import { ALWAYS_PULL_IMAGES_PLUGIN, alwaysPullImagesPlugin } from "./always-pull-images.ts";
import {
  CERTIFICATE_APPROVAL_PLUGIN,
  CERTIFICATE_SIGNING_PLUGIN,
  CERTIFICATE_SUBJECT_RESTRICTION_PLUGIN,
  certificateApprovalPlugin,
  certificateSigningPlugin,
  certificateSubjectRestrictionPlugin,
} from "./certificates.ts";
import { DEFAULT_INGRESS_CLASS_PLUGIN, defaultIngressClassPlugin } from "./default-ingress-class.ts";
import { DEFAULT_STORAGE_CLASS_PLUGIN, defaultStorageClassPlugin } from "./default-storage-class.ts";
import { DEFAULT_TOLERATION_SECONDS_PLUGIN, defaultTolerationSecondsPlugin } from "./default-toleration-seconds.ts";
import { EVENT_RATE_LIMIT_PLUGIN, eventRateLimitPlugin } from "./event-rate-limit.ts";
import { LIMIT_RANGER_PLUGIN, limitRangerPlugin } from "./limit-ranger.ts";
import { OWNER_REFERENCES_PLUGIN, ownerReferencesPermissionEnforcementPlugin } from "./owner-references-permission-enforcement.ts";
import { PVC_RESIZE_PLUGIN, persistentVolumeClaimResizePlugin } from "./persistent-volume-claim-resize.ts";
import { POD_NODE_SELECTOR_PLUGIN, podNodeSelectorPlugin } from "./pod-node-selector.ts";
import { POD_SECURITY_PLUGIN, podSecurityPlugin } from "./pod-security.ts";
import { PRIORITY_PLUGIN, priorityPlugin } from "./priority.ts";
import { RESOURCE_QUOTA_PLUGIN, resourceQuotaPlugin } from "./resource-quota.ts";
import { RUNTIME_CLASS_PLUGIN, runtimeClassPlugin } from "./runtime-class.ts";
import { SERVICE_ACCOUNT_PLUGIN, serviceAccountPlugin } from "./service-account.ts";
import { STORAGE_OBJECT_IN_USE_PROTECTION_PLUGIN, storageObjectInUseProtectionPlugin } from "./storage-object-in-use-protection.ts";
import { TAINT_NODES_BY_CONDITION_PLUGIN, taintNodesByConditionPlugin } from "./taint-nodes-by-condition.ts";

export const BUILTIN_PLUGIN_FACTORIES: ReadonlyArray<readonly [string, PluginFactory]> = [
  [LIMIT_RANGER_PLUGIN, limitRangerPlugin],
  [SERVICE_ACCOUNT_PLUGIN, serviceAccountPlugin],
  [TAINT_NODES_BY_CONDITION_PLUGIN, taintNodesByConditionPlugin],
  [POD_SECURITY_PLUGIN, podSecurityPlugin],
  [PRIORITY_PLUGIN, priorityPlugin],
  [DEFAULT_TOLERATION_SECONDS_PLUGIN, defaultTolerationSecondsPlugin],
  [DEFAULT_STORAGE_CLASS_PLUGIN, defaultStorageClassPlugin],
  [RUNTIME_CLASS_PLUGIN, runtimeClassPlugin],
  [DEFAULT_INGRESS_CLASS_PLUGIN, defaultIngressClassPlugin],
  [RESOURCE_QUOTA_PLUGIN, resourceQuotaPlugin],
  [STORAGE_OBJECT_IN_USE_PROTECTION_PLUGIN, storageObjectInUseProtectionPlugin],
  [PVC_RESIZE_PLUGIN, persistentVolumeClaimResizePlugin],
  [CERTIFICATE_APPROVAL_PLUGIN, certificateApprovalPlugin],
  [CERTIFICATE_SIGNING_PLUGIN, certificateSigningPlugin],
  [CERTIFICATE_SUBJECT_RESTRICTION_PLUGIN, certificateSubjectRestrictionPlugin],
  [ALWAYS_PULL_IMAGES_PLUGIN, alwaysPullImagesPlugin],
  [POD_NODE_SELECTOR_PLUGIN, podNodeSelectorPlugin],
  [EVENT_RATE_LIMIT_PLUGIN, eventRateLimitPlugin],
  [OWNER_REFERENCES_PLUGIN, ownerReferencesPermissionEnforcementPlugin],
];

/**
 * Registers every plugin of this folder. Idempotent: the chain registers them in
 * every replica (../build.ts), and callers that also pass this function as
 * `registerAdmissionPlugins` (the process entry point, benchmarks) do no harm.
 */
export function registerBuiltinPlugins(registry: PluginRegistry): void {
  for (const [name, factory] of BUILTIN_PLUGIN_FACTORIES) if (!registry.has(name)) registry.register(name, factory);
}
