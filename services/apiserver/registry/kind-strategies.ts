/**
 * The few kinds whose registry behaviour is more than the schema says: namespaces
 * (their own finalizers in spec, Terminating phase), pods (initial status, the
 * ephemeralcontainers and resize subresources), services
 * (allocated addresses and ports kept on update), ServiceCIDRs (status kept out of validation) and
 * webhook configurations (CEL match conditions compiled).
 * Everything else uses the generic strategy.
 */
import { initialPodStatus } from "../../../shared/api/groups/core-v1-pod.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { isObject, type JsonObject } from "../storage/object.ts";
import { genericStrategy, type Strategy } from "./strategy.ts";
import { csrStrategy } from "./csr-strategy.ts";
import { keepAllocatedValues } from "./service-update.ts";
import { serviceCIDRStrategy } from "./service-cidrs.ts";
import { prepareEphemeralContainers, prepareResize, validateEphemeralContainers, validateResize } from "./pod-subresources.ts";
import { eventStrategy, isEventKind } from "./event-strategy.ts";
import { webhookConfigurationStrategy } from "../admission/webhooks/config-strategy.ts";
import { mutatingAdmissionPolicyStrategy, validatingAdmissionPolicyStrategy } from "../admission/policy/strategy.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

function namespaceStrategy(def: KindDefinition, profile: PlatformProfile): Strategy {
  const base = genericStrategy(def);
  return {
    ...base,
    prepareForCreate(obj) {
      base.prepareForCreate(obj);
      const spec = isObject(obj.spec) ? obj.spec : (obj.spec = {});
      const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
      if (!finalizers.includes(profile.namespaceFinalizer)) spec.finalizers = [...finalizers, profile.namespaceFinalizer];
      obj.status = { phase: "Active" };
    },
    prepareForUpdate(obj, old) {
      base.prepareForUpdate(obj, old);
      // spec.finalizers changes only through the finalize subresource.
      obj.spec = cloneValue(old.spec ?? {});
    },
    prepareForSubresource(subresource, obj, old) {
      return subresource === "finalize" ? finalizeNamespace(obj, old) : undefined;
    },
    deletionBlocked(obj) {
      const spec = obj.spec as { finalizers?: unknown[] } | undefined;
      return (spec?.finalizers ?? []).length > 0;
    },
    markTerminating(obj) {
      const status = isObject(obj.status) ? obj.status : (obj.status = {});
      status.phase = "Terminating";
    },
  };
}

/** The finalize subresource of a namespace: only spec.finalizers changes. */
export function finalizeNamespace(input: JsonObject, current: JsonObject): JsonObject {
  const next = cloneValue(current);
  const spec = isObject(next.spec) ? next.spec : (next.spec = {});
  const given = isObject(input.spec) ? (input.spec.finalizers as unknown) : undefined;
  spec.finalizers = Array.isArray(given) ? given : [];
  const meta = next.metadata as Record<string, unknown>;
  meta.resourceVersion = (input.metadata as Record<string, unknown> | undefined)?.resourceVersion ?? meta.resourceVersion;
  return next;
}

function podStrategy(def: KindDefinition): Strategy {
  const base = genericStrategy(def);
  return {
    ...base,
    prepareForCreate(obj) {
      base.prepareForCreate(obj);
      obj.status = initialPodStatus(obj);
    },
    prepareForSubresource(subresource, obj, old) {
      if (subresource === "ephemeralcontainers") return prepareEphemeralContainers(obj, old);
      if (subresource === "resize") return prepareResize(obj, old);
      return undefined;
    },
    validateSubresourceUpdate(subresource, obj, old) {
      if (subresource === "ephemeralcontainers") return [...base.validate(obj), ...validateEphemeralContainers(obj, old)];
      if (subresource === "resize") return [...base.validate(obj), ...validateResize(obj, old)];
      return undefined;
    },
    // A pod bound to a node waits for its node agent to confirm termination; an
    // unscheduled or finished pod has nothing to wait for.
    gracePeriodSeconds(obj) {
      const spec = isObject(obj.spec) ? obj.spec : {};
      if (!spec.nodeName) return undefined;
      const status = isObject(obj.status) ? obj.status : {};
      if (status.phase === "Succeeded" || status.phase === "Failed") return undefined;
      return typeof spec.terminationGracePeriodSeconds === "number" ? spec.terminationGracePeriodSeconds : 30;
    },
  };
}

function serviceStrategy(def: KindDefinition): Strategy {
  const base = genericStrategy(def);
  return {
    ...base,
    prepareForUpdate(obj, old) {
      base.prepareForUpdate(obj, old);
      keepAllocatedValues(obj, old);
    },
  };
}

export function strategyFor(profile: PlatformProfile): (def: KindDefinition) => Strategy {
  return (def) => {
    if (def.group === "core" && def.plural === "namespaces") return namespaceStrategy(def, profile);
    if (def.group === "core" && def.plural === "pods") return podStrategy(def);
    if (def.group === "core" && def.plural === "services") return serviceStrategy(def);
    if (def.group === "admissionregistration" && (def.plural === "mutatingwebhookconfigurations" || def.plural === "validatingwebhookconfigurations")) return webhookConfigurationStrategy(def);
    if (def.group === "admissionregistration" && def.plural === "validatingadmissionpolicies") return validatingAdmissionPolicyStrategy(def);
    if (def.group === "admissionregistration" && def.plural === "mutatingadmissionpolicies") return mutatingAdmissionPolicyStrategy(def);
    if (def.group === "certificates" && def.plural === "certificatesigningrequests") return csrStrategy(def, profile);
    if (def.group === "networking" && def.plural === "servicecidrs") return serviceCIDRStrategy(def);
    if (isEventKind(def)) return eventStrategy(def, profile);
    return genericStrategy(def);
  };
}
