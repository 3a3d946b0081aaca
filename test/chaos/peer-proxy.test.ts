/**
 * The chaos suite's peer proxy over real loopback sockets: forwards, cuts and holds
 * the connections of a blocked client (found by pid through /proc), lets others
 * through, forwards again after pass(), and delays in order.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PeerProxy } from "./peer-proxy.ts";

let echo: Server;
let proxy: PeerProxy;
const sockets: Socket[] = [];

function dial(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(proxy.port, "127.0.0.1", () => resolve(s));
    s.on("error", reject);
    sockets.push(s);
  });
}

/** Resolves with what comes back (up to `length` characters) within `ms` ("" when nothing). */
function receive(s: Socket, length: number, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let got = "";
    const onData = (d: Buffer) => {
      got += d.toString();
      if (got.length >= length) done();
    };
    const done = () => {
      clearTimeout(timer);
      s.off("data", onData);
      resolve(got);
    };
    const timer = setTimeout(done, ms);
    s.on("data", onData);
  });
}

/** Sends `text` and resolves with what comes back within `ms`. */
function roundTrip(s: Socket, text: string, ms = 500): Promise<string> {
  const got = receive(s, text.length, ms);
  s.write(text);
  return got;
}

const closed = (s: Socket) => new Promise<boolean>((resolve) => (s.destroyed ? resolve(true) : s.once("close", () => resolve(true))));

describe("peer proxy", () => {
  beforeAll(async () => {
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", () => r()));
    proxy = await PeerProxy.start({ host: "127.0.0.1", port: (echo.address() as { port: number }).port }, () => [process.pid]);
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await proxy.stop();
    await new Promise<void>((r) => echo.close(() => r()));
  });

  it("forwards both ways", async () => {
    expect(await roundTrip(await dial(), "hello")).toBe("hello");
  });

  it("lets through a client that is not blocked", async () => {
    const s = await dial();
    proxy.block([process.pid + 1_000_000]);
    expect(await roundTrip(s, "still")).toBe("still");
    proxy.pass();
  });

  it("cuts a blocked client's connections and holds its new ones until pass()", async () => {
    const open = await dial();
    proxy.block([process.pid]);
    expect(await closed(open)).toBe(true);
    const held = await dial();
    expect(await roundTrip(held, "dropped", 300)).toBe("");
    proxy.pass();
    expect(await closed(held)).toBe(true);
    expect(await roundTrip(await dial(), "again")).toBe("again");
  });

  it("delays each chunk and keeps their order when the delay is lifted", async () => {
    const s = await dial();
    proxy.delay(200);
    let t0 = performance.now();
    expect(await roundTrip(s, "ab", 2000)).toBe("ab");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    proxy.delay(300);
    t0 = performance.now();
    const got = receive(s, 2, 2000);
    s.write("1");
    // "1" waits in the proxy; "2", sent once the delay is lifted, must not overtake it.
    await new Promise((r) => setTimeout(r, 100));
    proxy.delay(0);
    s.write("2");
    expect(await got).toBe("12");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    proxy.pass();
  });
});
