import { describe, expect, it } from "vitest";
import { getProfile } from "../platform/index.ts";
import type { FieldError } from "../schema/types.ts";
import {
  aggregateFieldErrors,
  alreadyExists,
  applyConflict,
  badRequest,
  continueExpired,
  conflict,
  forbidden,
  forbiddenWithReason,
  gone,
  internalError,
  invalid,
  isStatusError,
  listExpired,
  methodNotAllowed,
  notAcceptable,
  notFound,
  requestEntityTooLarge,
  serverTimeout,
  serviceUnavailable,
  statusHeaders,
  StatusError,
  successStatus,
  timeout,
  toStatus,
  toStatusError,
  tooLargeResourceVersion,
  tooManyRequests,
  tooOldResourceVersion,
  unauthorized,
  unsupportedMediaType,
  type Status,
} from "./status.ts";

const rbac = getProfile("plat").group("rbac");

describe("builders: code, reason, message", () => {
  const cases: Array<[string, StatusError, number, string, string]> = [
    ["notFound core", notFound("pods", "x"), 404, "NotFound", 'pods "x" not found'],
    ["notFound group", notFound("deployments", "x", "apps"), 404, "NotFound", 'deployments.apps "x" not found'],
    ["alreadyExists", alreadyExists("pods", "x"), 409, "AlreadyExists", 'pods "x" already exists'],
    ["alreadyExists group", alreadyExists("roles", "r", rbac), 409, "AlreadyExists", `roles.${rbac} "r" already exists`],
    [
      "conflict",
      conflict("pods", "x"),
      409,
      "Conflict",
      'Operation cannot be fulfilled on pods "x": the object has been modified; please apply your changes to the latest version and try again',
    ],
    ["conflict custom", conflict("jobs", "j", "batch", "boom"), 409, "Conflict", 'Operation cannot be fulfilled on jobs.batch "j": boom'],
    ["badRequest", badRequest("bad thing"), 400, "BadRequest", "bad thing"],
    ["unauthorized default", unauthorized(), 401, "Unauthorized", "Unauthorized"],
    ["unauthorized empty", unauthorized(""), 401, "Unauthorized", "not authorized"],
    ["methodNotAllowed", methodNotAllowed("nodes", "create", ""), 405, "MethodNotAllowed", 'create is not supported on resources of kind "nodes"'],
    [
      "notAcceptable",
      notAcceptable(["application/json", "application/yaml"]),
      406,
      "NotAcceptable",
      "only the following media types are accepted: application/json, application/yaml",
    ],
    [
      "unsupportedMediaType",
      unsupportedMediaType(["application/json-patch+json", "application/merge-patch+json"]),
      415,
      "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json",
    ],
    ["requestEntityTooLarge", requestEntityTooLarge("limit is 3145728"), 413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728"],
    ["gone", gone("gone away"), 410, "Gone", "gone away"],
    ["tooOld", tooOldResourceVersion(5, 10), 410, "Expired", "too old resource version: 5 (10)"],
    ["listExpired", listExpired(), 410, "Expired", "The resourceVersion for the provided list is too old."],
    ["timeout", timeout("request did not complete within 60s", 2), 504, "Timeout", "Timeout: request did not complete within 60s"],
    ["tooLarge", tooLargeResourceVersion(12, 10), 504, "Timeout", "Timeout: Too large resource version: 12, current: 10"],
    ["tooMany", tooManyRequests(), 429, "TooManyRequests", "Too many requests, please try again later."],
    ["internal", internalError(new Error("disk on fire")), 500, "InternalError", "Internal error occurred: disk on fire"],
    ["unavailable", serviceUnavailable("store unavailable"), 503, "ServiceUnavailable", "store unavailable"],
    [
      "serverTimeout",
      serverTimeout("pods", "get", 2),
      500,
      "ServerTimeout",
      "The get operation against pods could not be completed at this time, please try again.",
    ],
  ];
  it.each(cases)("%s", (_name, err, code, reason, message) => {
    expect(err).toBeInstanceOf(StatusError);
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe(code);
    expect(err.reason).toBe(reason);
    expect(err.message).toBe(message);
    expect(err.status).toMatchObject({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code, reason, message });
  });
});

describe("details", () => {
  it("notFound omits an empty group and names the resource as kind", () => {
    expect(notFound("pods", "x").status.details).toEqual({ name: "x", kind: "pods" });
    expect(notFound("deployments", "x", "apps").status.details).toEqual({ name: "x", group: "apps", kind: "deployments" });
  });

  it("tooLargeResourceVersion carries the cause and retry delay", () => {
    expect(tooLargeResourceVersion(12, 10).status.details).toEqual({
      retryAfterSeconds: 1,
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    });
  });

  it("timeout without a delay has empty details", () => {
    expect(timeout("x").status.details).toEqual({});
  });

  it("internal error cause repeats the message", () => {
    expect(internalError("plain text").status.details).toEqual({ causes: [{ message: "plain text" }] });
  });

  it("applyConflict lists causes", () => {
    const e = applyConflict([{ reason: "FieldManagerConflict", message: 'conflict with "kubectl"', field: ".spec.replicas" }], "Apply failed with 1 conflict");
    expect(e.code).toBe(409);
    expect(e.status.details?.causes).toHaveLength(1);
  });

  it("successStatus", () => {
    expect(successStatus({ name: "x", kind: "pods", uid: "u1" })).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      message: "",
      reason: "",
      code: 200,
      details: { name: "x", kind: "pods", uid: "u1" },
    });
  });
});

describe("continue expired", () => {
  it("uses the platform's message and returns the inconsistent token", () => {
    const e = continueExpired("tok123");
    expect(e.code).toBe(410);
    expect(e.reason).toBe("Expired");
    expect(e.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\. /);
    expect(e.message).toContain("use the continue token in this response to retrieve the remainder of the results");
    expect(e.message).toMatch(/may show up in the list\.$/);
    expect(e.status.metadata).toEqual({ continue: "tok123" });
    expect(continueExpired().status.metadata).toEqual({});
  });
});

describe("invalid", () => {
  const errs: FieldError[] = [
    { type: "FieldValueRequired", field: "spec.containers[0].image", message: "Required value" },
    { type: "FieldValueInvalid", field: "metadata.name", message: 'Invalid value: "A": must be lowercase', value: "A" },
  ];

  it("aggregates several errors in brackets with one cause each", () => {
    const e = invalid("Pod", "x", errs);
    expect(e.code).toBe(422);
    expect(e.reason).toBe("Invalid");
    expect(e.message).toBe('Pod "x" is invalid: [spec.containers[0].image: Required value, metadata.name: Invalid value: "A": must be lowercase]');
    expect(e.status.details).toEqual({
      name: "x",
      kind: "Pod",
      causes: [
        { reason: "FieldValueRequired", message: "Required value", field: "spec.containers[0].image" },
        { reason: "FieldValueInvalid", message: 'Invalid value: "A": must be lowercase', field: "metadata.name" },
      ],
    });
  });

  it("prints one error without brackets and qualifies the kind by group", () => {
    const e = invalid("Deployment", "d", [errs[0]], "apps");
    expect(e.message).toBe('Deployment.apps "d" is invalid: spec.containers[0].image: Required value');
    expect(e.status.details?.group).toBe("apps");
  });

  it("prints no colon without errors", () => {
    expect(invalid("Pod", "x", []).message).toBe('Pod "x" is invalid');
  });

  it("prints duplicate lines once but keeps every cause", () => {
    const e = invalid("Pod", "x", [errs[0], errs[0]]);
    expect(e.message).toBe('Pod "x" is invalid: spec.containers[0].image: Required value');
    expect(e.status.details?.causes).toHaveLength(2);
    expect(aggregateFieldErrors([])).toBe("");
  });
});

describe("forbidden", () => {
  it("namespaced resource with name", () => {
    const e = forbidden({ user: "u", verb: "get", resource: "pods", group: "", namespace: "ns", name: "x" });
    expect(e.code).toBe(403);
    expect(e.reason).toBe("Forbidden");
    expect(e.message).toBe('pods "x" is forbidden: User "u" cannot get resource "pods" in API group "" in the namespace "ns"');
    expect(e.status.details).toEqual({ name: "x", kind: "pods" });
  });

  it("cluster scope list with group", () => {
    const e = forbidden({ user: "jane", verb: "list", resource: "clusterroles", group: rbac });
    expect(e.message).toBe(
      `clusterroles.${rbac} is forbidden: User "jane" cannot list resource "clusterroles" in API group "${rbac}" at the cluster scope`,
    );
  });

  it("subresource and reason", () => {
    const e = forbidden({ user: "u", verb: "get", resource: "pods", subresource: "log", namespace: "ns", name: "p", reason: "no RBAC policy matched" });
    expect(e.message).toBe('pods "p" is forbidden: User "u" cannot get resource "pods/log" in API group "" in the namespace "ns": no RBAC policy matched');
  });

  it("non-resource path", () => {
    const e = forbidden({ user: "system:anonymous", verb: "get", path: "/logs" });
    expect(e.message).toBe('forbidden: User "system:anonymous" cannot get path "/logs"');
    expect(e.status.details).toEqual({});
  });

  it("free-form reason", () => {
    expect(forbiddenWithReason("pods", "", "unable to create new content in namespace ns because it is being terminated").message).toBe(
      "pods is forbidden: unable to create new content in namespace ns because it is being terminated",
    );
  });
});

describe("toStatus", () => {
  it("returns a StatusError's own status", () => {
    const e = notFound("pods", "x");
    expect(toStatus(e)).toBe(e.status);
  });

  it("wraps a plain Error as InternalError without the stack", () => {
    const err = new Error("kaput");
    const s = toStatus(err);
    expect(s.code).toBe(500);
    expect(s.reason).toBe("InternalError");
    expect(s.message).toBe("Internal error occurred: kaput");
    expect(JSON.stringify(s)).not.toContain("at ");
    expect(JSON.stringify(s)).not.toContain(".ts:");
  });

  it("keeps only the first line of a message that embeds a stack", () => {
    const s = toStatus(new Error("first line\n    at foo (/src/x.ts:1:2)"));
    expect(s.message).toBe("Internal error occurred: first line");
  });

  const odd: Array<[string, unknown, string]> = [
    ["string", "str", "Internal error occurred: str"],
    ["number", 42, "Internal error occurred: 42"],
    ["null", null, "Internal error occurred: unknown error"],
    ["undefined", undefined, "Internal error occurred: unknown error"],
    ["object with message", { message: "m" }, "Internal error occurred: m"],
    ["object without message", { a: 1 }, "Internal error occurred: unknown error"],
  ];
  it.each(odd)("%s", (_n, value, message) => {
    const s = toStatus(value);
    expect(s.code).toBe(500);
    expect(s.message).toBe(message);
  });

  it("accepts a Status object and an error holding one", () => {
    const st: Status = notFound("pods", "y").status;
    expect(toStatus(JSON.parse(JSON.stringify(st)))).toEqual(st);
    expect(toStatus({ status: st }).message).toBe('pods "y" not found');
  });

  it("toStatusError and isStatusError", () => {
    const e = toStatusError(new Error("x"));
    expect(isStatusError(e, "InternalError")).toBe(true);
    expect(isStatusError(e, "NotFound")).toBe(false);
    expect(isStatusError(new Error("x"))).toBe(false);
    const nf = notFound("pods", "x");
    expect(toStatusError(nf)).toBe(nf);
  });
});

describe("statusHeaders", () => {
  it("Retry-After from details", () => {
    expect(statusHeaders(tooManyRequests("slow down", 3).status)).toEqual({ "Retry-After": "3" });
    expect(statusHeaders(tooLargeResourceVersion(3, 2).status)).toEqual({ "Retry-After": "1" });
    expect(statusHeaders(notFound("pods", "x").status)).toEqual({});
  });
});
