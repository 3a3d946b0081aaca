/**
 * CertificateSigningRequest registry behaviour beyond its schema:
 * - create: status is cleared, and `spec.username`, `uid`, `groups` and `extra` are
 *   written from the requesting user (whatever the client sent is replaced);
 * - create through certificates/v1 refuses the profile's `<signer prefix>legacy-unknown`
 *   signer ("the legacy signerName is not allowed via this API version");
 * - the main resource never changes status; `status` changes status but keeps the spec
 *   and the Approved/Denied conditions (whatever the client sent for them: only
 *   `approval` decides); `approval` changes only status.conditions; no update removes
 *   an Approved, Denied or Failed condition.
 * Who may approve or sign is admission's concern (the `approve`/`sign` verbs on signers).
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { fieldErrors } from "../../../shared/schema/index.ts";
import type { FieldError, KindDefinition } from "../../../shared/schema/types.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";
import { genericStrategy, type RequestUser, type Strategy } from "./strategy.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

const APPROVAL_TYPES = new Set(["Approved", "Denied"]);

function specOf(obj: JsonObject): JsonObject {
  return isObject(obj.spec) ? obj.spec : (obj.spec = {});
}

function conditionsOf(obj: JsonObject): JsonObject[] {
  const status = isObject(obj.status) ? obj.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
}

/** The user's identity as the request's spec fields (an empty user leaves them unset). */
function fillRequester(obj: JsonObject, user: RequestUser | undefined): void {
  const spec = specOf(obj);
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (!user) return;
  if (user.username) spec.username = user.username;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length > 0) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) {
    spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  }
}

/** `old` with `status` replaced by `status` from `input` as `pick` merges them, and the input's resourceVersion. */
function withStatus(input: JsonObject, old: JsonObject, pick: (inStatus: JsonObject, oldStatus: JsonObject) => JsonObject): JsonObject {
  const next = cloneValue(old);
  const inStatus = isObject(input.status) ? input.status : {};
  const oldStatus = isObject(old.status) ? old.status : {};
  const status = pick(cloneValue(inStatus), cloneValue(oldStatus));
  if (Object.keys(status).length === 0) delete next.status;
  else next.status = status;
  meta(next).resourceVersion = meta(input).resourceVersion;
  return next;
}

export function csrStrategy(def: KindDefinition, profile: PlatformProfile): Strategy {
  const base = genericStrategy(def);
  const legacySigner = `${profile.admission.signerPrefix}legacy-unknown`;
  return {
    ...base,
    prepareForCreate(obj, user) {
      base.prepareForCreate(obj);
      delete obj.status;
      fillRequester(obj, user);
    },
    validate(obj): FieldError[] {
      const errors = base.validate(obj);
      const signer = specOf(obj).signerName;
      if (signer !== legacySigner) return errors;
      // the legacy signer replaces the format errors of the name
      return [
        ...errors.filter((e) => e.field !== "spec.signerName"),
        fieldErrors.invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version"),
      ];
    },
    validateUpdate(obj, old) {
      const errors = base.validateUpdate(obj, old);
      // a decision once taken (or a failure) stays: no update removes its condition
      for (const type of ["Approved", "Denied", "Failed"]) {
        const before = conditionsOf(old).filter((c) => c.type === type).length;
        const after = conditionsOf(obj).filter((c) => c.type === type).length;
        if (after < before) errors.push(fieldErrors.forbidden("status.conditions", `updates may not remove a condition of type ${JSON.stringify(type)}`));
      }
      return errors;
    },
    prepareForUpdate(obj, old) {
      base.prepareForUpdate(obj, old);
      if (old.status === undefined) delete obj.status;
      else obj.status = cloneValue(old.status);
    },
    prepareForStatusUpdate(obj, old) {
      // status carries the certificate and other conditions; approval decisions stay
      return withStatus(obj, old, (inStatus, oldStatus) => {
        const kept = conditionsOf({ status: oldStatus }).filter((c) => APPROVAL_TYPES.has(String(c.type)));
        const others = conditionsOf({ status: inStatus }).filter((c) => !APPROVAL_TYPES.has(String(c.type)));
        const conditions = [...kept, ...others];
        if (conditions.length > 0) inStatus.conditions = conditions;
        else delete inStatus.conditions;
        return inStatus;
      });
    },
    prepareForSubresource(subresource, obj, old) {
      if (subresource !== "approval") return undefined;
      return withStatus(obj, old, (inStatus, oldStatus) => {
        const conditions = conditionsOf({ status: inStatus });
        if (conditions.length > 0) oldStatus.conditions = conditions;
        else delete oldStatus.conditions;
        return oldStatus;
      });
    },
  };
}
