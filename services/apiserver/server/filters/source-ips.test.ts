/** sourceIps as a table: (X-Forwarded-For, X-Real-Ip, remote address) → the audit event's sourceIPs. */
import { describe, expect, it } from "vitest";
import { sourceIps } from "./source-ips.ts";

describe("sourceIps", () => {
  const rows: Array<[string | undefined, string | undefined, string | undefined, string[]]> = [
    [undefined, undefined, "127.0.0.1", ["127.0.0.1"]],
    [undefined, undefined, "::ffff:127.0.0.1", ["127.0.0.1"]],
    ["10.0.0.1", undefined, "127.0.0.1", ["10.0.0.1", "127.0.0.1"]],
    ["10.0.0.1, 10.0.0.2 ,garbage,", undefined, "127.0.0.1", ["10.0.0.1", "10.0.0.2", "127.0.0.1"]],
    ["10.0.0.1", "10.0.0.9", "127.0.0.1", ["10.0.0.1", "10.0.0.9", "127.0.0.1"]],
    ["10.0.0.1", "10.0.0.1", "127.0.0.1", ["10.0.0.1", "127.0.0.1"]],
    [undefined, "not-an-ip", "127.0.0.1", ["127.0.0.1"]],
    ["10.0.0.1, 127.0.0.1", undefined, "127.0.0.1", ["10.0.0.1", "127.0.0.1"]],
    ["127.0.0.1, 10.0.0.1", undefined, "127.0.0.1", ["127.0.0.1", "10.0.0.1", "127.0.0.1"]],
    ["2001:DB8::1", undefined, "::1", ["2001:db8::1", "::1"]],
    ["10.0.0.1", undefined, undefined, ["10.0.0.1"]],
  ];
  for (const [forwarded, real, remote, want] of rows) {
    it(`${forwarded ?? "-"} | ${real ?? "-"} | ${remote ?? "-"}`, () => {
      expect(sourceIps(forwarded, real, remote)).toEqual(want);
    });
  }
});
