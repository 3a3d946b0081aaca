/**
 * The built-in admission plugins of this folder, by their registered name. The
 * chain registers them all (`registerBuiltinPlugins`); which ones run is decided by
 * the default-on set and the flags (../order.ts, ../plugins.ts).
 */
import type { PluginFactory } from "../interfaces.ts";
import type { PluginRegistry } from "../plugins.ts";
import { DEFAULT_INGRESS_CLASS_PLUGIN, defaultIngressClassPlugin } from "./default-ingress-class.ts";
import { DEFAULT_STORAGE_CLASS_PLUGIN, defaultStorageClassPlugin } from "./default-storage-class.ts";
import { DEFAULT_TOLERATION_SECONDS_PLUGIN, defaultTolerationSecondsPlugin } from "./default-toleration-seconds.ts";
import { LIMIT_RANGER_PLUGIN, limitRangerPlugin } from "./limit-ranger.ts";
import { POD_SECURITY_PLUGIN, podSecurityPlugin } from "./pod-security.ts";
import { PRIORITY_PLUGIN, priorityPlugin } from "./priority.ts";
import { RESOURCE_QUOTA_PLUGIN, resourceQuotaPlugin } from "./resource-quota.ts";
import { RUNTIME_CLASS_PLUGIN, runtimeClassPlugin } from "./runtime-class.ts";
import { SERVICE_ACCOUNT_PLUGIN, serviceAccountPlugin } from "./service-account.ts";
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
];

/** Registers every plugin of this folder. */
export function registerBuiltinPlugins(registry: PluginRegistry): void {
  for (const [name, factory] of BUILTIN_PLUGIN_FACTORIES) registry.register(name, factory);
}
