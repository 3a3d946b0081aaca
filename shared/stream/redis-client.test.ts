/** Redis URLs: direct ones pass through, sentinel ones name their sentinels and master (table). */
import { describe, expect, it } from "vitest";
import { parseRedisUrl } from "./redis-client.ts";

describe("parseRedisUrl", () => {
  const cases: Array<{ url: string; want: ReturnType<typeof parseRedisUrl> }> = [
    { url: "redis://127.0.0.1:6379", want: { kind: "direct", url: "redis://127.0.0.1:6379" } },
    { url: "rediss://:pw@redis:6380/1", want: { kind: "direct", url: "rediss://:pw@redis:6380/1" } },
    {
      url: "redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster",
      want: { kind: "sentinel", sentinels: [{ host: "127.0.0.1", port: 26379 }, { host: "127.0.0.1", port: 26380 }], name: "mymaster", db: 0, tls: false },
    },
    {
      url: "redis+sentinel://:s3cr%40t@sentinel-a,sentinel-b:5000/main/2",
      want: { kind: "sentinel", sentinels: [{ host: "sentinel-a", port: 26379 }, { host: "sentinel-b", port: 5000 }], name: "main", db: 2, tls: false, password: "s3cr@t" },
    },
    {
      url: "rediss+sentinel://user:pw@[::1]:26379/m",
      want: { kind: "sentinel", sentinels: [{ host: "::1", port: 26379 }], name: "m", db: 0, tls: true, username: "user", password: "pw" },
    },
  ];
  for (const c of cases) {
    it(c.url, () => {
      expect(parseRedisUrl(c.url)).toEqual(c.want);
    });
  }

  const bad: Array<{ url: string; message: RegExp }> = [
    { url: "redis+sentinel://127.0.0.1:26379", message: /names no master/ },
    { url: "redis+sentinel:///m", message: /names no sentinel/ },
    { url: "redis+sentinel://h:99999/m", message: /invalid Redis sentinel port "99999"/ },
    { url: "redis+sentinel://h:1/m/x", message: /invalid Redis database "x"/ },
    { url: "redis+sentinel://:secret@h:1/m/x", message: /^(?!.*secret)/ },
  ];
  for (const c of bad) {
    it(`refuses ${c.url}`, () => {
      expect(() => parseRedisUrl(c.url)).toThrow(c.message);
    });
  }
});
