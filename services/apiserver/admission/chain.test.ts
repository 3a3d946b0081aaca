import { describe, expect, it } from "vitest";
import { forbiddenWithReason, isStatusError } from "../../../shared/api/status.ts";
import type { AdmissionRequest } from "../registry/registry.ts";
import type { ResourceInfo } from "../registry/resource.ts";
import type { JsonObject } from "../storage/object.ts";
import { AdmissionChain } from "./chain.ts";
import type { AdmissionPlugin, Attributes } from "./interfaces.ts";
import type { AdmissionMetrics } from "./metrics.ts";

const configMaps = { group: "", version: "v1", apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true, keyPrefix: "/registry/core/configmaps/" } as ResourceInfo;

function request(object: JsonObject | undefined): AdmissionRequest {
  return { operation: "CREATE", resource: configMaps, name: "c", namespace: "default", object, oldObject: undefined, ctx: { resource: configMaps, name: "c", namespace: "default", dryRun: false } };
}

const configMap = (): JsonObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" }, data: { a: "1" } });

/** A plugin of both phases that records its calls in `log`; `act` decides what it does (sync or async). */
function plugin(name: string, log: string[], act: (a: Attributes) => Promise<void> | void = () => {}): AdmissionPlugin {
  const run = (phase: string) => (a: Attributes) => {
    log.push(`${phase} ${name}`);
    return act(a);
  };
  return { name, handles: () => true, admit: run("admit"), validate: run("validate") };
}

/** Plugin and step observations as `<type> <name|step> <rejected>`. */
function recorder(): { metrics: AdmissionMetrics; seen: string[] } {
  const seen: string[] = [];
  const none = () => {};
  return {
    seen,
    metrics: {
      observeController: (name, type, _op, rejected) => seen.push(`${type} ${name} ${rejected}`),
      observeStep: (type, _op, rejected) => seen.push(`${type} step ${rejected}`),
      observeWebhook: none,
      observeWebhookRejection: none,
      observeWebhookRequest: none,
    },
  };
}

describe("admission chain", () => {
  it("hands back the request's own object when no plugin read it (no copy), and a changed copy when one did", async () => {
    const log: string[] = [];
    const chain = new AdmissionChain();
    chain.setPlugins([plugin("a", log), plugin("b", log)]);
    const req = request(configMap());
    expect(await chain.admit(req)).toBe(req.object);

    const labelling = new AdmissionChain();
    labelling.setPlugins([
      plugin("a", log),
      plugin("label", log, (a) => {
        (a.object!.metadata as JsonObject).labels = { x: "y" };
      }),
      plugin("c", log, (a) => {
        expect((a.object!.metadata as JsonObject).labels).toEqual({ x: "y" });
      }),
    ]);
    const original = configMap();
    const out = await labelling.admit(request(original));
    expect(out).not.toBe(original);
    expect((out!.metadata as JsonObject).labels).toEqual({ x: "y" });
    // The registry's object stays as it was.
    expect(original).toEqual(configMap());
  });

  it("runs every plugin in order across synchronous and asynchronous answers, each observed once, the step once", async () => {
    const log: string[] = [];
    const { metrics, seen } = recorder();
    const chain = new AdmissionChain(metrics);
    const later = () => new Promise<void>((resolve) => setImmediate(resolve));
    chain.setPlugins([plugin("sync1", log), plugin("async1", log, later), plugin("sync2", log), plugin("async2", log, later), plugin("sync3", log)]);
    await chain.validate(request(configMap()));
    expect(log).toEqual(["validate sync1", "validate async1", "validate sync2", "validate async2", "validate sync3"]);
    expect(seen).toEqual(["validate sync1 false", "validate async1 false", "validate sync2 false", "validate async2 false", "validate sync3 false", "validate step false"]);
  });

  it("stops at a rejection, thrown or rejected, with the plugin and the step observed as rejected", async () => {
    for (const deny of [
      () => {
        throw forbiddenWithReason("configmaps", "c", "no");
      },
      () => Promise.reject(forbiddenWithReason("configmaps", "c", "no")),
    ]) {
      for (const before of [() => {}, () => new Promise<void>((resolve) => setImmediate(resolve))]) {
        const log: string[] = [];
        const { metrics, seen } = recorder();
        const chain = new AdmissionChain(metrics);
        chain.setPlugins([plugin("first", log, before), plugin("deny", log, deny), plugin("after", log)]);
        const err: unknown = await chain.admit(request(configMap())).catch((e: unknown) => e);
        expect(isStatusError(err) && err.status.code).toBe(403);
        expect(log).toEqual(["admit first", "admit deny"]);
        expect(seen).toEqual(["admit first false", "admit deny true", "admit step true"]);
      }
    }
  });

  it("turns another error into a 500 naming the plugin", async () => {
    const chain = new AdmissionChain();
    chain.setPlugins([
      plugin("broken", [], () => {
        throw new Error("boom");
      }),
    ]);
    const err: unknown = await chain.validate(request(configMap())).catch((e: unknown) => e);
    expect(isStatusError(err) && err.status.code).toBe(500);
    expect(isStatusError(err) && err.status.message).toContain('admission plugin "broken" failed: boom');
  });
});
