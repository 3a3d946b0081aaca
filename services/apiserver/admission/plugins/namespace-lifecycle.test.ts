import { describe, expect, it } from "vitest";
import { isStatusError } from "../../../../shared/api/status.ts";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, ObjectAccess, ObjectRef, PluginContext } from "../interfaces.ts";
import { namespaceLifecycle } from "./namespace-lifecycle.ts";

const profile = getProfile("plat");

/** Objects as the watch cache holds them (peek) and as a read answers (get, counted). */
function objects(cached: Map<string, JsonObject>, stored: Map<string, JsonObject>): ObjectAccess & { gets: string[] } {
  const gets: string[] = [];
  return {
    gets,
    peek: (ref: ObjectRef) => cached.get(ref.name),
    get: (ref: ObjectRef, opts?: { cached?: boolean }) => {
      gets.push(`${ref.name}${opts?.cached ? " cached" : ""}`);
      const o = (opts?.cached ? cached : stored).get(ref.name);
      return Promise.resolve(o && structuredClone(o));
    },
    list: () => Promise.resolve([]),
    update: () => Promise.reject(new Error("not used")),
    create: () => Promise.reject(new Error("not used")),
    watchList: () => ({ synced: Promise.resolve(), stop: () => {} }),
  };
}

function lifecycle(access: ObjectAccess): AdmissionPlugin {
  return namespaceLifecycle({ profile, config: undefined, objects: access, authorize: () => Promise.resolve(true), log: () => {} } as PluginContext);
}

function createIn(namespace: string): Attributes {
  return {
    operation: "CREATE",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    subresource: "",
    name: "c",
    namespace,
    object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace } },
    oldObject: undefined,
    options: undefined,
    userInfo: { username: "u", groups: [] },
    dryRun: false,
    namespaced: true,
    setObject: () => {},
    addWarning: () => {},
    addAnnotation: () => {},
    addAnnotationWithLevel: () => {},
  };
}

const ns = (name: string, terminating = false): JsonObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name }, status: { phase: terminating ? "Terminating" : "Active" } });

describe("NamespaceLifecycle", () => {
  it("answers from the cache's namespace in place: at once (no promise), with no read", () => {
    const access = objects(new Map([["team", ns("team")]]), new Map());
    expect(lifecycle(access).admit!(createIn("team"))).toBeUndefined();
    expect(access.gets).toEqual([]);
  });

  it("refuses a create in a namespace the cache shows terminating, at once, with the NamespaceTerminating cause", () => {
    const access = objects(new Map([["old", ns("old", true)]]), new Map());
    let err: unknown;
    try {
      lifecycle(access).admit!(createIn("old"));
    } catch (e) {
      err = e;
    }
    expect(isStatusError(err) && err.status.code).toBe(403);
    expect(isStatusError(err) && err.status.details?.causes?.[0]?.reason).toBe("NamespaceTerminating");
    expect(access.gets).toEqual([]);
  });

  it("reads a namespace the cache does not hold live: found, or 404 naming it", async () => {
    const access = objects(new Map(), new Map([["fresh", ns("fresh")]]));
    const plugin = lifecycle(access);
    await expect(plugin.admit!(createIn("fresh"))).resolves.toBeUndefined();
    expect(access.gets).toEqual(["fresh cached", "fresh"]);
    const missing: unknown = await plugin.admit!(createIn("nowhere"))?.catch((e: unknown) => e);
    expect(isStatusError(missing, "NotFound") && missing.status.message).toContain('"nowhere"');
  });
});
