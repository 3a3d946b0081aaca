/**
 * The registry strategy of both Event faces (core/v1 and events/v1): the generic schema
 * and metadata checks, then event-validation.ts's rules for a create or an update in the
 * face the request used. The kind definitions' own event checks are replaced, not added
 * to, so that each rule reports once and in the platform's words. A core/v1 name need only
 * be a path segment (`a_B:1`), an events/v1 name a DNS subdomain, as on the platform.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { FieldError, KindDefinition } from "../../../shared/schema/types.ts";
import { validateEventCreate, validateEventUpdate, type EventFace } from "./event-validation.ts";
import { genericStrategy, type Strategy } from "./strategy.ts";

export function isEventKind(def: KindDefinition): boolean {
  return def.plural === "events" && (def.group === "core" || def.group === "events");
}

export function eventStrategy(def: KindDefinition, profile: PlatformProfile): Strategy {
  const face: EventFace = def.group === "events" ? "events/v1" : "core/v1";
  // core/v1 names only need to be path segments (the platform's common metadata check); events/v1 asks DNS subdomains.
  const base = genericStrategy({ ...def, validateKind: undefined, nameFormat: face === "core/v1" ? "path-segment-name" : def.nameFormat });
  // events/v1's type is reported by the event rules ("has invalid value"), not by the schema's enum.
  const schemaErrors = (errs: FieldError[]) => errs.filter((e) => !(e.field === "type" && e.type === "FieldValueNotSupported"));
  return {
    ...base,
    def,
    validate(obj) {
      return [...schemaErrors(base.validate(obj)), ...validateEventCreate(obj, face, profile.systemNamespace)];
    },
    validateUpdate(obj, old) {
      return [...schemaErrors(base.validate(obj)), ...validateEventUpdate(obj, old, face, profile.systemNamespace)];
    },
  };
}
