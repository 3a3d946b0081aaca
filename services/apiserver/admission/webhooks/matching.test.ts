import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { Attributes, ObjectAccess } from "../interfaces.ts";
import { MatchError, readNamespace } from "./matching.ts";

const profile = getProfile("plat");

function access(cached: JsonObject | undefined, stored: JsonObject | undefined): ObjectAccess & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    peek: () => cached,
    get: (_ref, opts) => {
      reads.push(opts?.cached ? "cached" : "live");
      return Promise.resolve(opts?.cached ? cached && structuredClone(cached) : stored);
    },
    list: () => Promise.resolve([]),
    update: () => Promise.reject(new Error("not used")),
    create: () => Promise.reject(new Error("not used")),
    watchList: () => ({ synced: Promise.resolve(), stop: () => {} }),
  };
}

const request = { namespace: "team", namespaced: true } as Attributes;
const team: JsonObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels: { tier: "a" } } };

describe("readNamespace", () => {
  it("reads the watch cache's namespace in place: the cache's own object, no read", async () => {
    const objects = access(team, undefined);
    expect(await readNamespace(request, { profile, objects })).toBe(team);
    expect(objects.reads).toEqual([]);
  });

  it("reads live what the cache does not hold; absent is a MatchError naming the namespace", async () => {
    const objects = access(undefined, team);
    expect(await readNamespace(request, { profile, objects })).toEqual(team);
    expect(objects.reads).toEqual(["cached", "live"]);
    const err: unknown = await readNamespace(request, { profile, objects: access(undefined, undefined) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MatchError);
    expect((err as Error).message).toBe('namespace "team" not found');
  });
});
