import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { RequestHeaders } from "./headers.ts";
import { hasImpersonationHeaders } from "./impersonation.ts";

/** A node request with only what RequestHeaders reads, counting reads of its raw list. */
function incoming(raw: string[]): { msg: IncomingMessage; reads: () => number } {
  let reads = 0;
  const msg = {
    get rawHeaders() {
      reads++;
      return raw;
    },
  } as unknown as IncomingMessage;
  return { msg, reads: () => reads };
}

describe("RequestHeaders", () => {
  it("keeps each line, names case-insensitive, values in order", () => {
    const { msg } = incoming(["Accept", "a", "X-Remote-Group", "g1", "x-remote-group", "g2,g3", "Host", "h"]);
    const h = RequestHeaders.from(undefined, msg);
    expect(h.get("x-REMOTE-group")).toBe("g1");
    expect(h.values("X-Remote-Group")).toEqual(["g1", "g2,g3"]);
    expect(h.names()).toEqual(["accept", "x-remote-group", "host"]);
    expect(h.has("host")).toBe(true);
    expect(h.get("missing")).toBeUndefined();
    expect(h.someName((n) => n.startsWith("x-remote-"))).toBe(true);
    expect(h.someName((n) => n === "X-Remote-Group")).toBe(false);
  });

  it("reads a request's headers once: authentication and impersonation share them", () => {
    const { msg, reads } = incoming(["Impersonate-User", "jane", "Accept", "*/*"]);
    const req = new Request("https://example.com/api");
    const first = RequestHeaders.from(req, msg);
    expect(RequestHeaders.from(req, msg)).toBe(first);
    expect(reads()).toBe(1);
    expect(RequestHeaders.from(req, incoming(["Accept", "*/*"]).msg)).not.toBe(first);
  });

  it("takes node's raw lines as they are: nothing is copied or lowercased until a header is asked for", () => {
    const raw = ["Accept", "*/*", "User-Agent", "kubectl", "Authorization", "Bearer t", "Host", "h"];
    let lineReads = 0;
    const counted = new Proxy(raw, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) lineReads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const h = RequestHeaders.from(undefined, incoming(counted).msg);
    expect(lineReads).toBe(0);
    expect(h.get("authorization")).toBe("Bearer t");
    expect(h.someNameWithPrefix("impersonate-", () => true)).toBe(false);
    expect(h.names()).toEqual(["accept", "user-agent", "authorization", "host"]);
  });

  it("someNameWithPrefix tests only names with the prefix, lowercased", () => {
    const h = RequestHeaders.from(undefined, incoming(["Accept", "a", "IMPERSONATE-Group", "g", "Impersonate-User", "u"]).msg);
    const seen: string[] = [];
    expect(h.someNameWithPrefix("impersonate-", (n) => (seen.push(n), n === "impersonate-user"))).toBe(true);
    expect(seen).toEqual(["impersonate-group", "impersonate-user"]);
    expect(h.someNameWithPrefix("x-remote-", () => true)).toBe(false);
    expect(RequestHeaders.from(undefined, incoming(["Impersonat", "x"]).msg).someNameWithPrefix("impersonate-", () => true)).toBe(false);
  });

  it("falls back to the fetch headers without a node request", () => {
    const req = new Request("https://example.com/api", { headers: { "Impersonate-Extra-Scopes": "view" } });
    const h = RequestHeaders.from(req);
    expect(h.values("impersonate-extra-scopes")).toEqual(["view"]);
    expect(RequestHeaders.from(req)).toBe(h);
  });

  it.each([
    [["Impersonate-User", "u"], true],
    [["impersonate-group", "g"], true],
    [["IMPERSONATE-UID", "1"], true],
    [["Impersonate-Extra-Scopes", "s"], true],
    [["Impersonate-Other", "x"], false],
    [["X-Impersonate-User", "u"], false],
    [["Accept", "*/*"], false],
  ])("%j asks for impersonation: %s", (raw, expected) => {
    expect(hasImpersonationHeaders(RequestHeaders.from(undefined, incoming(raw as string[]).msg))).toBe(expected);
  });
});
