import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerToken } from "./chain.ts";
import { parseCsv } from "./csv.ts";
import { defaultAuthenticationOptions } from "./options.ts";
import { startAuthServer, TempDir, type TestServer } from "./testing/harness.ts";
import { parseTokenFile } from "./token-file.ts";

describe("CSV reader", () => {
  it("reads quoted fields with commas, doubled quotes and newlines", () => {
    expect(parseCsv('a,"b,c","d""e"\n\n"x\ny",z\r\n')).toEqual([
      { line: 1, fields: ["a", "b,c", 'd"e'] },
      { line: 3, fields: ["x\ny", "z"] },
    ]);
  });
  it("rejects a bare quote and an unterminated quote", () => {
    expect(() => parseCsv('a,b"c')).toThrow(/bare "/);
    expect(() => parseCsv('a,"bc')).toThrow(/quoted field/);
  });
  it("keeps empty fields", () => {
    expect(parseCsv("a,,c")).toEqual([{ line: 1, fields: ["a", "", "c"] }]);
  });
});

describe("token file parsing", () => {
  it("reads token, user, uid and groups (quoted list and further columns)", () => {
    const entries = parseTokenFile('t1,alice,1,"dev,ops"\nt2,bob,2\nt3,carol,3,a,b\n');
    expect(entries.map((e) => e.user)).toEqual([
      { username: "alice", uid: "1", groups: ["dev", "ops"] },
      { username: "bob", uid: "2", groups: [] },
      { username: "carol", uid: "3", groups: ["a", "b"] },
    ]);
  });
  it("needs three columns and names the line, not the token", () => {
    expect(() => parseTokenFile("ok,u,1\nsecret-token,user\n")).toThrow(/at least 3 columns.*found 2 on line 2/);
    try {
      parseTokenFile("secret-token,user\n");
    } catch (err) {
      expect((err as Error).message).not.toContain("secret-token");
    }
  });
  it("refuses duplicate tokens", () => {
    expect(() => parseTokenFile("t,a,1\nt,b,2\n")).toThrow(/duplicate token on line 2/);
  });
});

describe("bearer header", () => {
  it("takes the token of a Bearer header only", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken(" bearer abc ")).toBe("abc");
    expect(bearerToken("Bearer abc def")).toBe("abc");
    // Split on single spaces: an extra space leaves an empty token, a tab no token at all.
    expect(bearerToken("bearer   abc ")).toBeUndefined();
    expect(bearerToken("Bearer\tabc")).toBeUndefined();
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken("Bearer ")).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe("static token file over HTTPS", () => {
  let srv: TestServer;
  const dir = new TempDir();
  beforeAll(async () => {
    const opts = defaultAuthenticationOptions();
    opts.tokenAuthFile = dir.write("tokens.csv", 'abcdef0123456789,alice,uid-1,"dev,ops"\n');
    srv = await startAuthServer(opts);
  });
  afterAll(async () => {
    await srv.close();
    dir.remove();
  });

  it("authenticates a listed token", async () => {
    const r = await srv.call({ headers: { authorization: "Bearer abcdef0123456789" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: "alice", uid: "uid-1", groups: ["dev", "ops", "system:authenticated"] });
  });

  it("answers 401 to an unknown token and does not echo it", async () => {
    const r = await srv.call({ headers: { authorization: "Bearer not-a-known-token" } });
    expect(r.status).toBe(401);
    expect(r.text).not.toContain("not-a-known-token");
  });

  it("answers 401 to a token with characters a bearer token cannot hold", async () => {
    expect((await srv.call({ headers: { authorization: "Bearer abcdef0123456789\u00e9" } })).status).toBe(401);
  });

  it("takes the part after the first space as the token and ignores what follows the next space", async () => {
    const r = await srv.call({ headers: { authorization: "Bearer abcdef0123456789 extra" } });
    expect(r.status).toBe(200);
    expect(r.body.username).toBe("alice");
  });

  it("treats `Bearer  <token>` (two spaces) and `Bearer<TAB><token>` as no token: anonymous", async () => {
    for (const authorization of ["Bearer  abcdef0123456789", "Bearer\tabcdef0123456789"]) {
      const r = await srv.call({ headers: { authorization } });
      expect(r.status, authorization).toBe(200);
      expect(r.body.username, authorization).toBe("system:anonymous");
    }
  });

  it("leaves other schemes to other methods (anonymous here)", async () => {
    const r = await srv.call({ headers: { authorization: "Basic dXNlcjpwYXNz" } });
    expect(r.status).toBe(200);
    expect(r.body.username).toBe("system:anonymous");
  });
});
