/**
 * Builds a replica's admission chain: the plugin registry (plugins.ts) with the
 * plugins of this folder registered, the enabled names from the flags in the
 * recommended order, each factory called with its configuration from
 * --admission-control-config-file. Unknown names and bad configurations throw
 * (start-up fails with the message).
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import type { Catalog } from "../registry/catalog.ts";
import { AdmissionChain } from "./chain.ts";
import { readAdmissionConfig } from "./config-file.ts";
import { catalogEquivalence } from "./equivalence.ts";
import type { AdmissionPlugin, AuthorizeCheck, AuthorizeDecision, PluginContext } from "./interfaces.ts";
import { declareAdmissionMetrics, type AdmissionMetrics } from "./metrics.ts";
import { catalogObjectAccess } from "./object-access.ts";
import { PluginRegistry, resolveEnabled, type AdmissionFlags } from "./plugins.ts";
import { ALWAYS_ADMIT, ALWAYS_DENY, alwaysAdmit, alwaysDeny } from "./plugins/always.ts";
import { NAMESPACE_LIFECYCLE, namespaceLifecycle } from "./plugins/namespace-lifecycle.ts";
import { NODE_RESTRICTION, nodeRestriction } from "./plugins/node-restriction.ts";
import { registerBuiltinPlugins } from "./plugins/index.ts";
import { WebhookClient } from "./webhooks/client.ts";
import { MUTATING_WEBHOOK, mutatingWebhookPlugin, VALIDATING_WEBHOOK, validatingWebhookPlugin, type WebhookDeps } from "./webhooks/plugin.ts";
import { serviceResolver } from "./webhooks/service-resolver.ts";
import { MUTATING_ADMISSION_POLICY, mutatingAdmissionPolicyPlugin } from "./policy/mutating-plugin.ts";
import { VALIDATING_ADMISSION_POLICY, validatingAdmissionPolicyPlugin } from "./policy/plugin.ts";

export interface AdmissionSetup {
  profile: PlatformProfile;
  flags?: AdmissionFlags;
  catalog: () => Catalog | undefined;
  /** The replica's authorizer; may be consulted only once requests flow. */
  authorize: AuthorizeCheck;
  /** The authorizer's full decision (reason, error), for policies' `authorizer` variable. */
  authorizeDecision?: AuthorizeDecision;
  metrics?: MetricsRegistry;
  log: PluginContext["log"];
  /** Adds plugins registered elsewhere (the built-in plugins of plugins/, tests). */
  register?: (registry: PluginRegistry) => void;
}

export interface BuiltAdmission {
  chain: AdmissionChain;
  /** Called once the catalog exists: constructs the enabled plugins. */
  start(): Promise<void>;
  close(): void;
}

function registerOwn(registry: PluginRegistry, deps: WebhookDeps): void {
  registry.register(ALWAYS_ADMIT, alwaysAdmit);
  registry.register(ALWAYS_DENY, alwaysDeny);
  registry.register(NAMESPACE_LIFECYCLE, namespaceLifecycle);
  registry.register(NODE_RESTRICTION, nodeRestriction);
  registerBuiltinPlugins(registry);
  registry.register(MUTATING_WEBHOOK, (ctx) => mutatingWebhookPlugin(ctx, deps));
  registry.register(VALIDATING_WEBHOOK, (ctx) => validatingWebhookPlugin(ctx, deps));
  registry.register(VALIDATING_ADMISSION_POLICY, (ctx) => validatingAdmissionPolicyPlugin(ctx, deps.equivalence));
  registry.register(MUTATING_ADMISSION_POLICY, (ctx) => mutatingAdmissionPolicyPlugin(ctx, deps.equivalence));
}

/** The chain is created at once (the catalog's hooks); `start` fills it once the catalog exists. */
export function buildAdmission(setup: AdmissionSetup): BuiltAdmission {
  const metrics: AdmissionMetrics | undefined = setup.metrics ? declareAdmissionMetrics(setup.metrics) : undefined;
  const chain = new AdmissionChain(metrics);
  const objects = catalogObjectAccess(setup.catalog);
  const client = new WebhookClient(serviceResolver(setup.profile, objects));
  const registry = new PluginRegistry();
  registerOwn(registry, { client, equivalence: catalogEquivalence(setup.catalog), metrics });
  setup.register?.(registry);
  const flags = setup.flags ?? { enable: [], disable: [] };
  // Validated now so that a bad flag fails start-up before anything serves.
  const names = resolveEnabled(registry, flags);
  let plugins: AdmissionPlugin[] = [];
  return {
    chain,
    async start() {
      const configs = flags.configFile ? await readAdmissionConfig(flags.configFile, setup.profile) : new Map();
      plugins = [];
      for (const name of names) {
        const factory = registry.factory(name);
        if (!factory) continue;
        try {
          plugins.push(await factory({ profile: setup.profile, config: configs.get(name), objects, authorize: setup.authorize, authorizeDecision: setup.authorizeDecision, log: setup.log }));
        } catch (err) {
          throw new Error(`admission plugin ${JSON.stringify(name)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
      }
      chain.setPlugins(plugins);
      setup.log("info", "loaded admission plugins", { mutating: chain.names("admit"), validating: chain.names("validate") });
    },
    close() {
      chain.close();
      client.close();
    },
  };
}
