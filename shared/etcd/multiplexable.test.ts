import { describe, expect, it } from "vitest";
import type { UnaryName, UnaryRequest } from "./methods.ts";
import { multiplexable } from "./multiplexable.ts";

const k = (s: string) => Buffer.from(s);

const CASES: Array<[string, UnaryName, object, boolean]> = [
  ["a Range of one key", "Range", { key: k("a") }, true],
  ["a Range with an empty range_end (one key)", "Range", { key: k("a"), range_end: Buffer.alloc(0) }, true],
  ["a count over a range", "Range", { key: k("a"), range_end: k("b"), count_only: true }, true],
  ["a Range over many keys", "Range", { key: k("a"), range_end: k("b") }, false],
  ["a Range over many keys with a limit", "Range", { key: k("a"), range_end: k("b"), limit: 1 }, false],
  ["a Put", "Put", { key: k("a"), value: k("v") }, true],
  ["a DeleteRange of one key", "DeleteRange", { key: k("a") }, true],
  ["a DeleteRange over many keys", "DeleteRange", { key: k("a"), range_end: k("b"), prev_kv: true }, false],
  ["a Txn of a put and a read of its key", "Txn", { success: [{ request_put: { key: k("a") } }], failure: [{ request_range: { key: k("a") } }] }, true],
  ["a Txn whose failure reads many keys", "Txn", { success: [{ request_put: { key: k("a") } }], failure: [{ request_range: { key: k("a"), range_end: k("b") } }] }, false],
  ["a Txn nesting a Txn that deletes many keys", "Txn", { success: [{ request_txn: { success: [{ request_delete_range: { key: k("a"), range_end: k("b") } }] } }] }, false],
  ["an empty Txn", "Txn", {}, true],
  ["a compaction", "Compact", { revision: 5 }, true],
  ["a lease grant", "LeaseGrant", { TTL: 10 }, true],
  ["a lease revoke", "LeaseRevoke", { ID: 1 }, true],
  ["the list of leases", "LeaseLeases", {}, false],
  ["the member list", "MemberList", {}, false],
  ["a status", "Status", {}, false],
];

describe("which calls share the call multiplexer", () => {
  it.each(CASES)("%s: %s", (_name, method, req, expected) => {
    expect(multiplexable(method, req as UnaryRequest<typeof method>)).toBe(expected);
  });
});
