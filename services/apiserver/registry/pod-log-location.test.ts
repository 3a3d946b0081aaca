import { describe, expect, it } from "vitest";
import { isStatusError } from "../../../shared/api/status.ts";
import type { JsonObject } from "../storage/object.ts";
import { agentLocation, chooseContainer, containerLogsPath, parsePodLogOptions } from "./pod-log-location.ts";

function failure(fn: () => unknown): { code?: number; message?: string } {
  try {
    fn();
  } catch (err) {
    if (isStatusError(err)) return err.status;
    throw err;
  }
  throw new Error("no failure");
}

const pod = (containers: string[], init: string[] = []): JsonObject => ({ metadata: { name: "p" }, spec: { containers: containers.map((name) => ({ name })), initContainers: init.map((name) => ({ name })) } });

describe("PodLogOptions from the query", () => {
  it.each([
    ["", { follow: false, previous: false, timestamps: false }],
    ["container=c&follow=true&previous=1&timestamps=True", { container: "c", follow: true, previous: true, timestamps: true }],
    ["tailLines=0&limitBytes=1&sinceSeconds=1", { tailLines: 0, limitBytes: 1, sinceSeconds: 1 }],
    ["sinceTime=2026-01-01T00:00:00Z", { sinceTime: "2026-01-01T00:00:00Z" }],
  ])("%j", (query, expected) => {
    expect(parsePodLogOptions(new URLSearchParams(query), "p")).toMatchObject(expected);
  });

  it.each([
    ["follow=yes", 400, 'strconv.ParseBool: parsing "yes": invalid syntax'],
    ["tailLines=ten", 400, 'strconv.ParseInt: parsing "ten": invalid syntax'],
    ["tailLines=-1", 422, 'PodLogOptions "p" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
    ["limitBytes=0", 422, 'PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
    ["sinceSeconds=0", 422, 'PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
    ["sinceSeconds=1&sinceTime=2026-01-01T00:00:00Z", 422, 'PodLogOptions "p" is invalid: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
  ])("%j is %d", (query, code, message) => {
    expect(failure(() => parsePodLogOptions(new URLSearchParams(query), "p"))).toMatchObject({ code, message });
  });
});

describe("container choice", () => {
  it.each([
    [pod(["a"]), undefined, "a"],
    [pod(["a"], ["i"]), "i", "i"],
    [pod(["a", "b"]), "b", "b"],
  ])("%j %s", (p, requested, chosen) => {
    expect(chooseContainer(p, requested)).toBe(chosen);
  });

  it.each([
    [pod(["a", "b"], ["i"]), undefined, "a container name must be specified for pod p, choose one of: [i a b]"],
    [pod([]), undefined, "a container name must be specified for pod p"],
    [pod(["a"]), "z", "container z is not valid for pod p"],
  ])("%j %s is 400", (p, requested, message) => {
    expect(failure(() => chooseContainer(p, requested))).toMatchObject({ code: 400, message });
  });
});

describe("agent location", () => {
  const node = (addresses: Array<{ type: string; address: string }>, port?: number): JsonObject => ({ status: { addresses, ...(port ? { daemonEndpoints: { kubeletEndpoint: { Port: port } } } : {}) } });
  it.each([
    [node([{ type: "InternalIP", address: "127.0.0.1" }, { type: "Hostname", address: "h" }], 1234), ["Hostname", "InternalIP"], { host: "h", port: 1234 }],
    [node([{ type: "InternalIP", address: "127.0.0.1" }, { type: "Hostname", address: "h" }]), ["InternalIP"], { host: "127.0.0.1", port: 10250 }],
  ])("%j by %j", (n, types, at) => {
    expect(agentLocation(n, types)).toEqual(at);
  });

  it("no preferred address is a 500", () => {
    expect((agentLocation(node([{ type: "Hostname", address: "h" }]), ["InternalIP"]) as { status: unknown }).status).toMatchObject({ code: 500, message: "Internal error occurred: no preferred addresses found; known addresses: [{Hostname h}]" });
  });

  it("builds the agent's path and query", () => {
    expect(containerLogsPath("ns", "p", "c", { follow: true, previous: false, timestamps: true, tailLines: 3, limitBytes: 10 })).toBe("/containerLogs/ns/p/c?follow=true&timestamps=true&tailLines=3&limitBytes=10");
    expect(containerLogsPath("ns", "p", "c", { follow: false, previous: false, timestamps: false })).toBe("/containerLogs/ns/p/c");
  });
});
