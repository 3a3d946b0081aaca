/**
 * The authorizer's reason travels with a denial to the audit filter, which writes
 * it as the `<annotations.authorizationReason>` annotation of the request's events
 * (the platform records the reason of allows and denials alike). The reason is kept
 * beside the error object, not in its message or Status.
 */
const reasons = new WeakMap<object, string>();

/** Marks `err` (a denial) with the authorizer's reason; returns it for `throw`. */
export function withAuthorizationReason<E extends object>(err: E, reason: string): E {
  reasons.set(err, reason);
  return err;
}

/** The authorizer's reason of a denial, when the error carries one. */
export function authorizationReasonOf(err: unknown): string | undefined {
  return typeof err === "object" && err !== null ? reasons.get(err) : undefined;
}
