/** Bootstrap token Secrets and cluster-info signatures, as tables. */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { detachedSignature, parseTokenSecret, signedClusterInfoData } from "./tokens.ts";

const TYPE = "bootstrap.x/token";
const secret = (name: string, data: Record<string, string>, type = TYPE): ApiObject => ({ metadata: { name }, type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])) });

describe("parseTokenSecret", () => {
  const rows: Array<[string, ApiObject, boolean]> = [
    ["well-formed", secret("bootstrap-token-abcdef", { "token-id": "abcdef", "token-secret": "0123456789abcdef" }), true],
    ["wrong type", secret("bootstrap-token-abcdef", { "token-id": "abcdef", "token-secret": "0123456789abcdef" }, "Opaque"), false],
    ["name does not match the id", secret("bootstrap-token-zzzzzz", { "token-id": "abcdef", "token-secret": "0123456789abcdef" }), false],
    ["short secret", secret("bootstrap-token-abcdef", { "token-id": "abcdef", "token-secret": "0123" }), false],
    ["upper-case id", secret("bootstrap-token-ABCDEF", { "token-id": "ABCDEF", "token-secret": "0123456789abcdef" }), false],
  ];
  for (const [name, s, ok] of rows) it(name, () => expect(parseTokenSecret(s, TYPE) !== undefined).toBe(ok));
});

describe("signatures", () => {
  it("is a detached HS256 JWS over the content", () => {
    const jws = detachedSignature("hello", "abcdef", "0123456789abcdef");
    const [h, p, s] = jws.split(".");
    expect(p).toBe("");
    expect(JSON.parse(Buffer.from(h, "base64url").toString())).toEqual({ alg: "HS256", kid: "abcdef" });
    expect(s).toBe(createHmac("sha256", "0123456789abcdef").update(`${h}.${Buffer.from("hello").toString("base64url")}`).digest("base64url"));
  });
  it("signs for valid signing tokens only and drops stale signatures", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    const out = signedClusterInfoData({ kubeconfig: "k", other: "o", "jws-kubeconfig-gone00": "x" }, [
      { id: "aaaaaa", secret: "s".repeat(16), signing: true },
      { id: "bbbbbb", secret: "s".repeat(16), signing: false },
      { id: "cccccc", secret: "s".repeat(16), signing: true, expiresAtMs: now },
      { id: "dddddd", secret: "s".repeat(16), signing: true, expiresAtMs: now + 1 },
    ], now);
    expect(Object.keys(out).sort()).toEqual(["jws-kubeconfig-aaaaaa", "jws-kubeconfig-dddddd", "kubeconfig", "other"]);
  });
});
