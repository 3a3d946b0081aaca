/**
 * Free loopback ports for test servers.
 *
 * A port is picked at random below the kernel's ephemeral range (32768-60999 by
 * default) and checked by binding 127.0.0.1 to it. A port from the ephemeral range
 * (what `listen(0)` hands out) can be taken, between this check and the server's own
 * bind, by the local end of any outgoing connection of any process on the machine,
 * and the server then fails with EADDRINUSE; below that range only another explicit
 * bind can take it.
 */
import { randomInt } from "node:crypto";
import { createServer } from "node:net";

const LOWEST = 10_000;
const BELOW_EPHEMERAL = 32_768;
const ATTEMPTS = 64;

function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(undefined));
    srv.listen(port, "127.0.0.1", () => {
      const bound = (srv.address() as { port: number }).port;
      srv.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const port = await tryPort(randomInt(LOWEST, BELOW_EPHEMERAL));
    if (port !== undefined) return port;
  }
  const any = await tryPort(0);
  if (any === undefined) throw new Error("no free loopback port");
  return any;
}
