/**
 * The two error mappings of the storage layer as tables: a failed etcd v3 call to its
 * store client error (fromEtcdError), and a store client error met in an operation to
 * its StorageError (toStorageError).
 */
import { describe, expect, it } from "vitest";
import { EtcdCallError, ETCD_MESSAGES, GrpcStatus } from "../../../shared/etcd/errors.ts";
import {
  CompactedError,
  ExpiredError,
  fromEtcdError,
  FutureRevisionError,
  RequestTooLargeError,
  StorageTimeoutError,
  StorageUnreachableError,
  StoreRejectedError,
  StoreRequestTooLargeError,
  StoreUnavailableError,
  toStorageError,
  TooLargeResourceVersionError,
  type StorageErrorCode,
  type StorageOperation,
} from "./errors.ts";

const lookup = { requested: 7, compactRevision: async () => 5, currentRevision: async () => 6 };

describe("fromEtcdError", () => {
  it.each([
    ["compacted", GrpcStatus.OUT_OF_RANGE, ETCD_MESSAGES.compacted, CompactedError],
    ["future revision", GrpcStatus.OUT_OF_RANGE, ETCD_MESSAGES.futureRevision, FutureRevisionError],
    ["deadline exceeded", GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded after 1.501s", StoreUnavailableError],
    ["no leader", GrpcStatus.UNAVAILABLE, ETCD_MESSAGES.noLeader, StoreUnavailableError],
    ["connection refused", GrpcStatus.UNAVAILABLE, "No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1", StoreUnavailableError],
    ["request timed out", GrpcStatus.UNAVAILABLE, "etcdserver: request timed out", StoreUnavailableError],
    ["request too large", GrpcStatus.INVALID_ARGUMENT, "etcdserver: request is too large", StoreRequestTooLargeError],
    ["over the message limit", GrpcStatus.RESOURCE_EXHAUSTED, "Received message larger than max", StoreRequestTooLargeError],
    ["bad argument", GrpcStatus.INVALID_ARGUMENT, "etcdserver: key is not provided", StoreRejectedError],
  ])("maps %s", async (_name, code, details, expected) => {
    const mapped = await fromEtcdError(new EtcdCallError(code, details, "127.0.0.1:1"), lookup);
    expect(mapped).toBeInstanceOf(expected);
  });

  it.each([
    ["deadline exceeded", GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded", true],
    ["request timed out", GrpcStatus.UNAVAILABLE, "etcdserver: request timed out", true],
    ["no leader", GrpcStatus.UNAVAILABLE, ETCD_MESSAGES.noLeader, false],
    ["connection refused", GrpcStatus.UNAVAILABLE, "connect ECONNREFUSED", false],
  ])("tells a store that did not answer in time (%s) from one that could not be reached", async (_name, code, details, timedOut) => {
    const mapped = (await fromEtcdError(new EtcdCallError(code, details, "e"), lookup)) as StoreUnavailableError;
    expect(mapped.timedOut).toBe(timedOut);
  });

  it("looks up the revisions of compacted and future revision errors", async () => {
    const compacted = (await fromEtcdError(new EtcdCallError(GrpcStatus.OUT_OF_RANGE, ETCD_MESSAGES.compacted, ""), lookup)) as CompactedError;
    expect([compacted.requested, compacted.compactRevision]).toEqual([7, 5]);
    const future = (await fromEtcdError(new EtcdCallError(GrpcStatus.OUT_OF_RANGE, ETCD_MESSAGES.futureRevision, ""), lookup)) as FutureRevisionError;
    expect([future.requested, future.current]).toEqual([7, 6]);
  });

  it("passes errors that are not failed calls through", async () => {
    const other = new TypeError("x");
    expect(await fromEtcdError(other, lookup)).toBe(other);
  });
});

describe("toStorageError", () => {
  it.each<[string, Error, StorageOperation, StorageErrorCode, new (...args: never[]) => Error]>([
    ["a store that did not answer", new StoreUnavailableError("Deadline exceeded", "e", true), "get", "Timeout", StorageTimeoutError],
    ["an unreachable store", new StoreUnavailableError("connect ECONNREFUSED", "e"), "create", "Unreachable", StorageUnreachableError],
    ["a compacted revision", new CompactedError(3, 9), "list", "Gone", ExpiredError],
    ["a future revision", new FutureRevisionError(30, 9), "list", "TooLargeResourceVersion", TooLargeResourceVersionError],
    ["a request over the store's limit", new StoreRequestTooLargeError("etcdserver: request is too large"), "update", "TooLarge", RequestTooLargeError],
  ])("maps %s", (_name, err, operation, code, expected) => {
    const mapped = toStorageError(err, operation, "/registry/k");
    expect(mapped).toBeInstanceOf(expected);
    expect((mapped as { code: string }).code).toBe(code);
    expect((mapped as { key: string }).key).toBe("/registry/k");
  });

  it("keeps the operation, and the revisions of compacted and future reads", () => {
    expect((toStorageError(new StoreUnavailableError("x", "e"), "delete", "k") as StorageUnreachableError).operation).toBe("delete");
    expect((toStorageError(new CompactedError(3, 9), "list", "k") as ExpiredError).compacted).toEqual({ requested: 3, oldest: 9 });
    const tooLarge = toStorageError(new FutureRevisionError(30, 9), "get", "k") as TooLargeResourceVersionError;
    expect([tooLarge.requested, tooLarge.current]).toEqual([30, 9]);
  });

  it("passes other errors through, a rejected call included", () => {
    const rejected = new StoreRejectedError(GrpcStatus.INVALID_ARGUMENT, "bad");
    expect(toStorageError(rejected, "get", "k")).toBe(rejected);
    const other = new Error("x");
    expect(toStorageError(other, "get", "k")).toBe(other);
  });
});
