/** Maps storage failures to the platform's Status errors for one resource. */
import {
  alreadyExists,
  badRequest,
  conflict,
  continueExpired,
  internalError,
  notFound,
  requestEntityTooLarge,
  statusError,
  tooLargeResourceVersion,
  tooOldResourceVersion,
  type StatusError,
} from "../../../shared/api/status.ts";
import { StorageError } from "../storage/interface.ts";
import { InvalidResourceVersionError } from "../storage/resource-version.ts";
import type { ResourceInfo } from "./resource.ts";

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
    case "Gone": {
      if (err.message.startsWith("continue")) return continueExpired();
      const m = /too old resource version: (\d+) \((\d+)\)/.exec(err.message);
      return m ? tooOldResourceVersion(m[1], m[2]) : statusError({ code: 410, reason: "Expired", message: err.message });
    }
    case "TooLargeResourceVersion": {
      const m = /Too large resource version: (\d+), current: (\d+)/.exec(err.message);
      return m ? tooLargeResourceVersion(m[1], m[2]) : internalError(err);
    }
    case "TooLarge":
      return requestEntityTooLarge(err.message);
    case "Timeout":
      return statusError({ code: 504, reason: "Timeout", message: err.message });
  }
}
