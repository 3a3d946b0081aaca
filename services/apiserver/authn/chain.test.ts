import { describe, expect, it } from "vitest";
import { unauthorized } from "../../../shared/api/status.ts";
import { anonymousFor } from "./anonymous.ts";
import { audienceAgnostic, bearerAuthenticator, unionAuthenticator, unionTokenAuthenticator, withAuthenticatedGroup } from "./chain.ts";
import { RequestHeaders } from "./headers.ts";
import { NO_OPINION, type AuthRequest, type Authenticator, type TokenAuthenticator } from "./types.ts";

const req = (headers: Record<string, string> = {}): AuthRequest => ({ headers: RequestHeaders.of(headers), peerCertificates: [], path: "/x" });
const fixed = (name: string, outcome: "user" | "none" | "error"): Authenticator => ({
  name,
  async authenticate() {
    if (outcome === "error") throw unauthorized(`${name} failed`);
    return outcome === "user" ? { user: { username: name, groups: [] } } : NO_OPINION;
  },
});
const token = (accept: string): TokenAuthenticator => ({
  name: accept,
  async authenticateToken(t) {
    return t === accept ? { user: { username: accept, groups: ["g"] } } : NO_OPINION;
  },
});

/** A method that answers synchronously. */
const now = (name: string, outcome: "user" | "none" | "error"): Authenticator => ({
  name,
  authenticate() {
    if (outcome === "error") throw unauthorized(`${name} failed`);
    return outcome === "user" ? { user: { username: name, groups: [] } } : NO_OPINION;
  },
});

describe("union of methods", () => {
  it("answers synchronously while every method asked answers synchronously (with the authenticated group)", () => {
    const r = withAuthenticatedGroup(unionAuthenticator("u", [now("a", "error"), now("b", "none"), now("c", "user"), fixed("d", "user")])).authenticate(req());
    expect(r).not.toBeInstanceOf(Promise);
    expect(r).toEqual({ user: { username: "c", groups: ["system:authenticated"] } });
    expect(() => unionAuthenticator("u", [now("a", "none"), now("b", "error")]).authenticate(req())).toThrow(/b failed/);
    expect(unionAuthenticator("u", [now("a", "none")]).authenticate(req())).toEqual(NO_OPINION);
  });
  it("goes on after a method that answers later, keeping the errors of those before it", async () => {
    const later = unionAuthenticator("u", [now("a", "error"), fixed("b", "none"), now("c", "none")]).authenticate(req());
    expect(later).toBeInstanceOf(Promise);
    await expect(later).rejects.toMatchObject({ status: { code: 401, message: expect.stringMatching(/a failed/) } });
    expect(await unionAuthenticator("u", [fixed("a", "error"), now("b", "user")]).authenticate(req())).toEqual({ user: { username: "b", groups: [] } });
  });
  it("lets a later success win over an earlier error", async () => {
    const r = await unionAuthenticator("u", [fixed("a", "error"), fixed("b", "none"), fixed("c", "user")]).authenticate(req());
    expect(r).toEqual({ user: { username: "c", groups: [] } });
  });
  it("fails with 401 when a method failed and none succeeded", async () => {
    await expect(unionAuthenticator("u", [fixed("a", "none"), fixed("b", "error")]).authenticate(req())).rejects.toMatchObject({ status: { code: 401 } });
  });
  it("has no opinion when no method has one", async () => {
    expect(await unionAuthenticator("u", [fixed("a", "none")]).authenticate(req())).toEqual(NO_OPINION);
  });
  it("adds system:authenticated once", async () => {
    const r = await withAuthenticatedGroup(fixed("a", "user")).authenticate(req());
    expect(r).toEqual({ user: { username: "a", groups: ["system:authenticated"] } });
  });
});

describe("bearer tokens", () => {
  const bearer = bearerAuthenticator(unionTokenAuthenticator("t", [token("one"), token("two")]));
  it("asks every token method", async () => {
    expect(await bearer.authenticate(req({ authorization: "Bearer two" }))).toMatchObject({ user: { username: "two" } });
  });
  it("is 401 for a token no method accepts", async () => {
    await expect(bearer.authenticate(req({ authorization: "Bearer three" }))).rejects.toMatchObject({ status: { code: 401 } });
  });
  it("has no opinion without a bearer header", async () => {
    expect(await bearer.authenticate(req())).toEqual(NO_OPINION);
  });
});

describe("audience-agnostic token methods", () => {
  const t = audienceAgnostic(["api", "api2"], token("x"));
  it("are valid for the API audiences", async () => {
    expect(await t.authenticateToken("x", [])).toMatchObject({ audiences: ["api", "api2"] });
    expect(await t.authenticateToken("x", ["api2", "vault"])).toMatchObject({ audiences: ["api2"] });
  });
  it("have no opinion for foreign audiences", async () => {
    expect(await t.authenticateToken("x", ["vault"])).toEqual(NO_OPINION);
  });
});

describe("anonymous policy", () => {
  it("allows, refuses and limits by path", () => {
    expect(anonymousFor({ enabled: true }, "/any")).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    expect(() => anonymousFor({ enabled: false }, "/any")).toThrow(/Unauthorized/);
    expect(anonymousFor({ enabled: true, paths: ["/livez"] }, "/livez").username).toBe("system:anonymous");
    expect(() => anonymousFor({ enabled: true, paths: ["/livez"] }, "/readyz")).toThrow(/Unauthorized/);
  });
});

describe("request headers", () => {
  it("keeps each line of a repeated header", () => {
    const h = new RequestHeaders([["X-A", "1"], ["x-a", "2,3"], ["B", "b"]]);
    expect(h.values("x-A")).toEqual(["1", "2,3"]);
    expect(h.get("X-A")).toBe("1");
    expect(h.names()).toEqual(["x-a", "b"]);
  });
});
