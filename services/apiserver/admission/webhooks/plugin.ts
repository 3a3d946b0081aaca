/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: the
 * configurations are kept current from the watch cache (a change applies on
 * every replica within the cache's delay), sorted by configuration name, their
 * webhooks in order; requests wait for the first list. Webhooks are never
 * called for the admission configuration kinds themselves.
 */
import { celAuthorizer } from "../cel-authorizer.ts";
import type { AdmissionPlugin, Attributes, PluginContext } from "../interfaces.ts";
import type { AdmissionMetrics } from "../metrics.ts";
import type { WebhookClient } from "./client.ts";
import { Dispatcher } from "./dispatcher.ts";
import { hooksOf, type Hook, type HookType } from "./hook.ts";
import { isExempt, type Equivalence } from "./matching.ts";

export const MUTATING_WEBHOOK = "MutatingAdmissionWebhook";
export const VALIDATING_WEBHOOK = "ValidatingAdmissionWebhook";

/** What the replica gives both webhook plugins. */
export interface WebhookDeps {
  client: WebhookClient;
  equivalence?: Equivalence;
  metrics?: AdmissionMetrics;
}

function configName(o: { metadata?: unknown }): string {
  return String((o.metadata as { name?: string } | undefined)?.name ?? "");
}

function webhookPlugin(type: HookType, ctx: PluginContext, deps: WebhookDeps): AdmissionPlugin {
  let hooks: readonly Hook[] = [];
  const resource = type === "mutating" ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
  const watch = ctx.objects.watchList(ctx.profile.group("admissionregistration"), resource, (items) => {
    hooks = [...items].sort((x, y) => configName(x).localeCompare(configName(y))).flatMap((c) => hooksOf(c, type));
  });
  const dispatcher = new Dispatcher({ profile: ctx.profile, client: deps.client, match: { profile: ctx.profile, objects: ctx.objects, equivalence: deps.equivalence, authorize: celAuthorizer(ctx) }, metrics: deps.metrics, log: ctx.log });
  let synced = false;
  watch.synced.then(
    () => (synced = true),
    () => {}, // a request waiting for the list gets its error
  );
  // Synchronous when nothing can match (no webhook configured once the first list is in): no turn of the event loop.
  const run = (a: Attributes, phase: (h: readonly Hook[], a: Attributes) => Promise<void>): Promise<void> | undefined => {
    if (!synced) return watch.synced.then(() => run(a, phase));
    if (hooks.length === 0 || isExempt(ctx.profile, a)) return undefined;
    return phase(hooks, a);
  };
  const plugin: AdmissionPlugin = {
    name: type === "mutating" ? MUTATING_WEBHOOK : VALIDATING_WEBHOOK,
    handles: () => true,
    close: () => watch.stop(),
  };
  if (type === "mutating") plugin.admit = (a) => run(a, (h, x) => dispatcher.mutate(h, x));
  else plugin.validate = (a) => run(a, (h, x) => dispatcher.validate(h, x));
  return plugin;
}

export function mutatingWebhookPlugin(ctx: PluginContext, deps: WebhookDeps): AdmissionPlugin {
  return webhookPlugin("mutating", ctx, deps);
}

export function validatingWebhookPlugin(ctx: PluginContext, deps: WebhookDeps): AdmissionPlugin {
  return webhookPlugin("validating", ctx, deps);
}
