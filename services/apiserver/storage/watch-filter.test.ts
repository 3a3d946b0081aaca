/**
 * decodeChange with the previous object held decoded (the watch cache's): the previous
 * object is the held one at the change's revision, equal to what decoding `prevValue`
 * gives, made without decoding those bytes and without touching the held object; a
 * corrupt placeholder is not used.
 */
import { describe, expect, it } from "vitest";
import { corruptionOf, decodeStored } from "./corrupt-object.ts";
import type { KeyChange } from "./kv.ts";
import { encodeForStorage, type JsonObject } from "./object.ts";
import { decodeChange } from "./watch-filter.ts";

const KEY = "/registry/core/configmaps/ns/a";
const stored = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "ns", uid: "u1", labels: { x: "y" } }, data: { k: "v" } };

function change(type: "PUT" | "DELETE", prev: Uint8Array, value?: Uint8Array): KeyChange {
  return { type, key: KEY, value, prevValue: prev, createRevision: 3, modRevision: 9, version: 2 } as KeyChange;
}

describe("decodeChange with the held previous object", () => {
  const bytes = encodeForStorage(stored);
  const held = decodeStored(KEY, bytes, 3);

  it.each(["PUT", "DELETE"] as const)("gives for a %s the previous object decoding prevValue gives", (type) => {
    const c = change(type, bytes, type === "PUT" ? encodeForStorage({ ...stored, data: { k: "w" } }) : undefined);
    const withHeld = decodeChange(c, 9, held);
    expect(withHeld.previous).toEqual(decodeChange(c, 9).previous);
    expect(JSON.stringify(withHeld.previous)).toBe(JSON.stringify(decodeChange(c, 9).previous)); // same key order
    expect((withHeld.previous?.metadata as JsonObject).resourceVersion).toBe("9");
    expect((held.metadata as JsonObject).resourceVersion).toBe("3");
  });

  it("does not decode prevValue when it holds the object", () => {
    const garbage = new TextEncoder().encode("{not json");
    const c = change("DELETE", garbage);
    expect(corruptionOf(decodeChange(c, 9).previous as JsonObject)).toBeDefined();
    const previous = decodeChange(c, 9, held).previous as JsonObject;
    expect(corruptionOf(previous)).toBeUndefined();
    expect(previous.data).toEqual({ k: "v" });
  });

  it("decodes prevValue when the held object is a corrupt placeholder", () => {
    const placeholder = decodeStored(KEY, new TextEncoder().encode("{not json"), 3);
    expect(decodeChange(change("DELETE", bytes), 9, placeholder).previous).toEqual(decodeStored(KEY, bytes, 9));
  });
});
