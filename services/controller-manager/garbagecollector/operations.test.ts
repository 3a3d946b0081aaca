/**
 * The collector's delete: one DELETE with the policy and the uid precondition, through
 * the client's `deleteOnly` when it has one (the answer's object is not decoded), else
 * `delete`; NotFound and Conflict mean the work is moot, other failures are thrown.
 */
import { describe, expect, it } from "vitest";
import { StatusError, type StatusReason } from "../../../shared/api/status.ts";
import type { DeleteOptions, ObjectClient, ResourceRef } from "../../../shared/client/object-client.ts";
import { deleteObject } from "./operations.ts";

const CM: ResourceRef = { group: "", version: "v1", resource: "configmaps" };
const ID = { uid: "u-1", resource: CM, namespace: "ns", name: "dep" };

function failure(code: number, reason: StatusReason): StatusError {
  return new StatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code, reason, message: reason });
}

function client(withDeleteOnly: boolean, fail?: StatusError): { client: ObjectClient; calls: Array<{ method: string; name: string; opts?: DeleteOptions }> } {
  const calls: Array<{ method: string; name: string; opts?: DeleteOptions }> = [];
  const c = {
    delete: async (_res: ResourceRef, name: string, opts?: DeleteOptions) => {
      calls.push({ method: "delete", name, opts });
      if (fail) throw fail;
      return { metadata: { name } };
    },
    ...(withDeleteOnly
      ? {
          deleteOnly: async (_res: ResourceRef, name: string, opts?: DeleteOptions) => {
            calls.push({ method: "deleteOnly", name, opts });
            if (fail) throw fail;
          },
        }
      : {}),
  } as unknown as ObjectClient;
  return { client: c, calls };
}

describe("deleteObject", () => {
  it("deletes through deleteOnly with the policy and the uid precondition", async () => {
    const { client: c, calls } = client(true);
    expect(await deleteObject(c, ID, "Background")).toBe(true);
    expect(calls).toEqual([{ method: "deleteOnly", name: "dep", opts: { namespace: "ns", propagationPolicy: "Background", preconditions: { uid: "u-1" } } }]);
  });

  it("uses delete on a client without deleteOnly", async () => {
    const { client: c, calls } = client(false);
    expect(await deleteObject(c, ID, "Foreground")).toBe(true);
    expect(calls.map((x) => x.method)).toEqual(["delete"]);
  });

  it.each([
    [404, "NotFound"],
    [409, "Conflict"],
  ] as const)("counts %i %s as moot", async (code, reason) => {
    expect(await deleteObject(client(true, failure(code, reason)).client, ID, "Background")).toBe(false);
  });

  it("throws other failures", async () => {
    await expect(deleteObject(client(true, failure(500, "InternalError")).client, ID, "Background")).rejects.toThrow("InternalError");
  });
});
