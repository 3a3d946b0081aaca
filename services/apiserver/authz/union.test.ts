import { describe, expect, it } from "vitest";
import { UnionAuthorizer } from "./chain.ts";
import { ALLOW, NO_OPINION, type Attributes, type Authorizer, type Decision } from "./types.ts";

const attrs: Attributes = { user: { username: "u", groups: [] }, verb: "get", isResourceRequest: true, path: "", namespace: "ns", apiGroup: "", apiVersion: "v1", resource: "pods", subresource: "", name: "p" };

function sync(name: string, d: Decision, asked: string[]): Authorizer {
  return { name, authorize: () => (asked.push(name), d) };
}

function later(name: string, d: Decision, asked: string[]): Authorizer {
  return { name, authorize: async () => (asked.push(name), d) };
}

describe("UnionAuthorizer", () => {
  it("answers synchronously while every authorizer asked answers synchronously", () => {
    const asked: string[] = [];
    const union = new UnionAuthorizer([sync("a", NO_OPINION("a says no"), asked), sync("b", ALLOW("b allows"), asked), later("c", ALLOW(), asked)]);
    const d = union.authorize(attrs);
    expect(d).not.toBeInstanceOf(Promise);
    expect(d).toEqual(ALLOW("b allows"));
    expect(asked).toEqual(["a", "b"]);
  });

  it("goes on after an authorizer that answers later, keeping every NoOpinion's reason and error", async () => {
    const asked: string[] = [];
    const union = new UnionAuthorizer([sync("a", NO_OPINION("a: no rule"), asked), later("w", NO_OPINION("w: no opinion", "w timed out"), asked), sync("c", NO_OPINION("c: none", "c broke"), asked)]);
    const d = union.authorize(attrs);
    expect(d).toBeInstanceOf(Promise);
    expect(await d).toEqual(NO_OPINION("a: no rule\nw: no opinion\nc: none", "w timed out; c broke"));
    expect(asked).toEqual(["a", "w", "c"]);
  });

  it("stops at the first decision after a later answer", async () => {
    const asked: string[] = [];
    const deny: Decision = { decision: "Deny", reason: "w denies" };
    const union = new UnionAuthorizer([later("w", deny, asked), sync("b", ALLOW(), asked)]);
    expect(await union.authorize(attrs)).toEqual(deny);
    expect(asked).toEqual(["w"]);
  });
});
