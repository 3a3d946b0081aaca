/**
 * Every StorageError as the Status a client gets for it (registry/errors.ts), as a
 * table: the platform's code, reason, message and details for each storage failure of
 * a named resource (deployments in the apps group).
 */
import { describe, expect, it } from "vitest";
import { StatusError, type Status } from "../../shared/api/status.ts";
import { toResourceError } from "../../services/apiserver/registry/errors.ts";
import type { ResourceInfo } from "../../services/apiserver/registry/resource.ts";
import {
  ExpiredError,
  InvalidObjError,
  KeyExistsError,
  KeyNotFoundError,
  RequestTooLargeError,
  ResourceVersionConflictError,
  StorageTimeoutError,
  StorageUnreachableError,
  TooLargeResourceVersionError,
  UidPreconditionError,
} from "../../services/apiserver/storage/interface.ts";

const deployments = { group: "apps", plural: "deployments", kind: "Deployment" } as ResourceInfo;
const KEY = "/registry/apps/deployments/ns/web";

describe("storage errors as Status", () => {
  it.each<[string, Error, Partial<Status>]>([
    ["key not found", new KeyNotFoundError(KEY), { code: 404, reason: "NotFound", message: 'deployments.apps "web" not found' }],
    ["key exists", new KeyExistsError(KEY), { code: 409, reason: "AlreadyExists", message: 'deployments.apps "web" already exists' }],
    [
      "a resourceVersion precondition",
      new ResourceVersionConflictError(KEY, "Precondition failed: ResourceVersion in precondition: 3, ResourceVersion in object meta: 5"),
      { code: 409, reason: "Conflict", message: 'Operation cannot be fulfilled on deployments.apps "web": Precondition failed: ResourceVersion in precondition: 3, ResourceVersion in object meta: 5' },
    ],
    [
      "a uid precondition",
      new UidPreconditionError(KEY, "a", "b"),
      { code: 409, reason: "Conflict", message: 'Operation cannot be fulfilled on deployments.apps "web": Precondition failed: UID in precondition: a, UID in object meta: b' },
    ],
    ["an invalid object", new InvalidObjError(KEY, "continue key is not valid"), { code: 400, reason: "BadRequest", message: "continue key is not valid" }],
    [
      "a compacted revision",
      ExpiredError.compactedRevision(KEY, 3, 9),
      { code: 410, reason: "Expired", message: "too old resource version: 3 (9)" },
    ],
    [
      "a revision not reached",
      new TooLargeResourceVersionError(KEY, 30, 9),
      { code: 504, reason: "Timeout", message: "Timeout: Too large resource version: 30, current: 9", details: { retryAfterSeconds: 1, causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }] } },
    ],
    [
      "a store that did not answer in time",
      new StorageTimeoutError(KEY, "get", "Deadline exceeded"),
      { code: 504, reason: "Timeout", message: "Timeout: request did not complete within requested timeout - context deadline exceeded" },
    ],
    [
      "an unreachable store",
      new StorageUnreachableError(KEY, "update", "connect ECONNREFUSED"),
      {
        code: 500,
        reason: "ServerTimeout",
        message: "The update operation against deployments.apps could not be completed at this time, please try again.",
        details: { name: "update", group: "apps", kind: "deployments", retryAfterSeconds: 2 },
      },
    ],
    ["an object over the store's limit", new RequestTooLargeError(KEY, "Request entity too large: limit is 1572864"), { code: 413, reason: "RequestEntityTooLarge" }],
  ])("maps %s", (_name, err, expected) => {
    const mapped = toResourceError(err, deployments, "web");
    expect(mapped).toBeInstanceOf(StatusError);
    expect((mapped as StatusError).status).toMatchObject({ kind: "Status", status: "Failure", ...expected });
  });

  it("maps an expired continue token to its own Expired message", () => {
    const mapped = toResourceError(ExpiredError.continueExpired(KEY), deployments, "") as StatusError;
    expect(mapped.status).toMatchObject({ code: 410, reason: "Expired" });
    expect(mapped.status.message).not.toBe((toResourceError(ExpiredError.compactedRevision(KEY, 3, 9), deployments, "") as StatusError).status.message);
  });
});
