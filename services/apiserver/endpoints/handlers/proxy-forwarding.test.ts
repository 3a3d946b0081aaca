import { describe, expect, it } from "vitest";
import { backendRequestHeaders, callerResponseHeaders } from "./proxy-forwarding.ts";

describe("backendRequestHeaders", () => {
  const cases: Array<{ name: string; given: Record<string, string>; sent: Record<string, string> }> = [
    { name: "ordinary headers go along", given: { accept: "application/json", "x-custom": "1", cookie: "a=b" }, sent: { accept: "application/json", "x-custom": "1", cookie: "a=b" } },
    { name: "credentials stay", given: { authorization: "Bearer t", "proxy-authorization": "Basic x", accept: "*/*" }, sent: { accept: "*/*" } },
    { name: "impersonation stays", given: { "impersonate-user": "u", "impersonate-group": "g", "impersonate-uid": "1", "impersonate-extra-scopes": "s", "x-a": "1" }, sent: { "x-a": "1" } },
    { name: "hop-by-hop and those Connection names stay", given: { connection: "keep-alive, X-Private", "keep-alive": "timeout=5", "x-private": "p", te: "trailers", trailer: "x", upgrade: "h2c", "x-b": "2" }, sent: { "x-b": "2" } },
    { name: "host and content-length are the backend's", given: { host: "api:6443", "content-length": "3", "content-type": "text/plain" }, sent: { "content-type": "text/plain" } },
  ];
  for (const c of cases) it(c.name, () => expect(backendRequestHeaders(new Headers(c.given))).toEqual(c.sent));
});

describe("callerResponseHeaders", () => {
  const cases: Array<{ name: string; raw: string[]; back: Array<[string, string]> }> = [
    { name: "backend headers go back, repeats kept", raw: ["Content-Type", "text/html", "Set-Cookie", "a=1", "Set-Cookie", "b=2", "Location", "/x"], back: [["content-type", "text/html"], ["location", "/x"], ["set-cookie", "a=1"], ["set-cookie", "b=2"]] },
    { name: "hop-by-hop, named ones and the length stay", raw: ["Connection", "X-Hop", "X-Hop", "1", "Transfer-Encoding", "chunked", "Proxy-Authenticate", "Basic", "Content-Length", "9", "X-Ok", "y"], back: [["x-ok", "y"]] },
  ];
  for (const c of cases) it(c.name, () => expect([...callerResponseHeaders(c.raw).entries()].sort()).toEqual(c.back));
});
