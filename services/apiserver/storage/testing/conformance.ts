/**
 * One behavioural suite for every ObjectStorage implementation (direct store path and
 * watch-cache path), as the platform's storage tests (store_tests.go) are run against
 * both its etcd store and its watch cache. Call it from a test file with a factory that
 * builds a storage for one case; every case writes under a collection prefix of its
 * own, so a factory may reuse one store for all cases. It runs over the embedded store
 * in process (test/storage/storage.test.ts), the store's gRPC server
 * (test/storage/grpc-kv.test.ts) and a real etcd 3.4 cluster
 * (test/storage/etcd-conformance.test.ts), each with and without the watch cache.
 *
 * Families: conformance-writes.ts (Create, Get, GuaranteedUpdate, Delete),
 * conformance-list.ts (List), conformance-watch.ts (Watch).
 */
import { afterEach, describe } from "vitest";
import { freshPrefix, type ConformanceCase, type ConformanceExclusions, type StorageFixture } from "./conformance-support.ts";
import { listCases } from "./conformance-list.ts";
import { watchCases } from "./conformance-watch.ts";
import { createAndGetCases, deleteCases, guaranteedUpdateCases, suggestionCases } from "./conformance-writes.ts";

export type { ConformanceExclusions, StorageFixture } from "./conformance-support.ts";

export function storageConformance(name: string, makeFixture: () => Promise<StorageFixture>, excluded: ConformanceExclusions = {}): void {
  describe(`storage conformance: ${name}`, () => {
    let fx: StorageFixture | undefined;
    let prefix = "";
    const c: ConformanceCase = {
      async setup() {
        fx = await makeFixture();
        prefix = freshPrefix();
        return fx.storage;
      },
      fixture() {
        if (!fx) throw new Error("conformance case used its fixture before setup()");
        return fx;
      },
      prefix: () => prefix,
      excluded,
    };
    afterEach(async () => {
      await fx?.close();
      fx = undefined;
    });

    describe("create and get", () => createAndGetCases(c));
    describe("guaranteed update", () => guaranteedUpdateCases(c));
    describe("delete", () => deleteCases(c));
    describe("update and delete with a suggestion", () => suggestionCases(c));
    describe("list", () => listCases(c));
    describe("watch", () => watchCases(c));
  });
}
