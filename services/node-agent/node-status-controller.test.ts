/**
 * The status loop's read of its Node: served from the apiserver's watch cache
 * (resourceVersion "0"), as the platform's agent reads it each update period.
 */
import { describe, expect, it } from "vitest";
import type { ApiObject, ObjectClient, ResourceRef } from "../../shared/client/object-client.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { NodeStatusController } from "./node-status-controller.ts";
import type { MachineFacts } from "./node-object.ts";

const machine: MachineFacts = { hostname: "n1", cpus: 2, memoryBytes: 4 << 30, os: "linux", arch: "amd64", kernelVersion: "6", osImage: "x", machineID: "m", systemUUID: "s", bootID: "b" };

describe("node status sync", () => {
  it("reads its Node from the watch cache (resourceVersion 0)", async () => {
    const reads: Array<{ resource: string; name: string; opts: unknown }> = [];
    const client = {
      get: (res: ResourceRef, name: string, opts?: unknown) => {
        reads.push({ resource: res.resource, name, opts });
        return Promise.resolve({ apiVersion: "v1", kind: "Node", metadata: { name }, status: {} } as ApiObject);
      },
      patch: () => Promise.resolve({} as ApiObject),
    } as unknown as ObjectClient;
    const controller = new NodeStatusController(() => client, {
      profile: getProfile("plat"),
      machine,
      shape: () => ({ name: "n1", labels: {}, maxPods: 110, port: 10250, containerRuntimeVersion: "" }),
      registerNode: false,
      updateFrequencyMs: 10_000,
      reportFrequencyMs: 300_000,
      probe: () => Promise.resolve({}),
      log: () => {},
    });
    await controller.sync();
    expect(reads).toEqual([{ resource: "nodes", name: "n1", opts: { resourceVersion: "0" } }]);
  });
});
