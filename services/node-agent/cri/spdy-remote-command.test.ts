/**
 * The SPDY side of the runtime's streaming server: the resize stream's object splitting
 * (table), and the version negotiation of `Upgrade: SPDY/3.1` requests against a real
 * streaming server over loopback (the 101 with the chosen version, 400 without any,
 * 403 listing the served ones). The sessions themselves run end to end with kubectl in
 * test/e2e/kubectl-exec.test.ts and kubectl-port-forward.test.ts.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitJsonObjects } from "./spdy-remote-command.ts";
import { StreamingServer } from "./streaming-server.ts";

describe("splitJsonObjects", () => {
  const cases: Array<[string, string[], string]> = [
    ['{"Width":80,"Height":24}', ['{"Width":80,"Height":24}'], ""],
    ['{"Width":80,"Height":24}{"Width":100,"Height":40}', ['{"Width":80,"Height":24}', '{"Width":100,"Height":40}'], ""],
    ['{"Width":80,"Height":24}\n{"Wid', ['{"Width":80,"Height":24}'], '{"Wid'],
    ["", [], ""],
  ];
  for (const [text, objects, rest] of cases) it(JSON.stringify(text), () => expect(splitJsonObjects(text)).toEqual({ objects, rest }));
});

describe("SPDY upgrade negotiation", () => {
  let server: StreamingServer;
  beforeAll(async () => {
    server = await StreamingServer.start("example.io");
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Sends an `Upgrade: SPDY/3.1` request; resolves with the status, headers and body (none for a 101). */
  function spdyUpgrade(url: string, versions: string[]): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { connection: "Upgrade", upgrade: "SPDY/3.1", ...(versions.length > 0 ? { "x-stream-protocol-version": versions } : {}) } });
      req.on("upgrade", (res, socket) => {
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: "" });
      });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  const exec = () => server.exec({ cmd: ["true"], stdin: false, stdout: true, stderr: false, tty: false });

  it("answers 101 with the first of the client's versions served here", async () => {
    const res = await spdyUpgrade(exec(), ["v9.channel.example.io", "v4.channel.example.io", "v5.channel.example.io"]);
    expect(res.status).toBe(101);
    expect(res.headers).toMatchObject({ upgrade: "SPDY/3.1", "x-stream-protocol-version": "v4.channel.example.io" });
    const forward = await spdyUpgrade(server.portForward({ podName: "p", target: (port) => ({ host: "127.0.0.1", port }) }), ["portforward.example.io"]);
    expect(forward.headers).toMatchObject({ "x-stream-protocol-version": "portforward.example.io" });
  });

  it("refuses a request without a version (400) or with none served here (403)", async () => {
    const none = await spdyUpgrade(exec(), []);
    expect(none).toMatchObject({ status: 400, body: "unable to upgrade: X-Stream-Protocol-Version is required" });
    const foreign = await spdyUpgrade(exec(), ["v4.channel.other.example", "v3.channel.other.example"]);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toBe("unable to upgrade: unable to negotiate protocol: client supports [v4.channel.other.example v3.channel.other.example], server accepts [v5.channel.example.io v4.channel.example.io]");
    expect(foreign.headers["x-accepted-stream-protocol-versions"]).toBe("v5.channel.example.io, v4.channel.example.io");
  });
});
