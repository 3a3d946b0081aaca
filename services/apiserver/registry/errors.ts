/**
 * Maps storage failures to the platform's Status errors for one resource. A store that
 * did not answer in time gives what the platform answers when etcd does not (504 Timeout,
 * "request did not complete within requested timeout - context deadline exceeded"); a store
 * that could not be reached gives its ServerTimeout for the operation (500, retry after 2 s).
 */
import {
  alreadyExists,
  badRequest,
  conflict,
  continueExpired,
  internalError,
  notFound,
  requestEntityTooLarge,
  serverTimeout,
  statusError,
  timeout,
  tooLargeResourceVersion,
  tooOldResourceVersion,
  type StatusError,
} from "../../../shared/api/status.ts";
import { ExpiredError, StorageError, StorageUnreachableError, TooLargeResourceVersionError } from "../storage/interface.ts";
import { InvalidResourceVersionError } from "../storage/resource-version.ts";
import type { ResourceInfo } from "./resource.ts";

/** The platform's message when its storage call outlives the request's deadline. */
const STORE_DEADLINE_EXCEEDED = "request did not complete within requested timeout - context deadline exceeded";
/** Seconds a client is told to wait before retrying when the store is unreachable (the platform's 2). */
const UNREACHABLE_RETRY_AFTER_SECONDS = 2;

export function toResourceError(err: unknown, r: ResourceInfo, name: string): StatusError | unknown {
  if (err instanceof InvalidResourceVersionError) return badRequest(err.message);
  if (!(err instanceof StorageError)) return err;
  switch (err.code) {
    case "NotFound":
      return notFound(r.plural, name, r.group);
    case "KeyExists":
      return alreadyExists(r.plural, name, r.group);
    case "Conflict":
      return conflict(r.plural, name, r.group, err.message.startsWith("Precondition") ? err.message : undefined);
    case "PreconditionFailed":
      return conflict(r.plural, name, r.group, err.message);
    case "InvalidObj":
      return badRequest(err.message);
    case "Gone":
      if (err instanceof ExpiredError && err.compacted) return tooOldResourceVersion(err.compacted.requested, err.compacted.oldest);
      if (err instanceof ExpiredError) return continueExpired();
      return statusError({ code: 410, reason: "Expired", message: err.message });
    case "TooLargeResourceVersion":
      return err instanceof TooLargeResourceVersionError ? tooLargeResourceVersion(err.requested, err.current) : internalError(err);
    case "TooLarge":
      return requestEntityTooLarge(err.message);
    case "Timeout":
      return timeout(STORE_DEADLINE_EXCEEDED);
    case "Unreachable":
      return serverTimeout(r.plural, err instanceof StorageUnreachableError ? err.operation : "get", UNREACHABLE_RETRY_AFTER_SECONDS, r.group);
  }
}
