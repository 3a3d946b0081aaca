/**
 * Child process of the API benchmark that generates closed-loop GET load (each of
 * `concurrency` clients sends its next request when the previous answer is read), so
 * the server's event loop does not also run the clients. Protocol over IPC:
 *   parent → {type:"load", target, path, durationMs, concurrency}
 *   child  → {type:"loaded", requests, failures}
 */
import { Agent, request } from "node:https";

export interface LoadTarget {
  url: string;
  ca: string;
  cert?: string;
  key?: string;
}

export type LoadRequest = { type: "load"; target: LoadTarget; path: string; durationMs: number; concurrency: number };
export type LoadReply = { type: "loaded"; requests: number; failures: number };

function get(agent: Agent, url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { method: "GET", agent }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve(res.statusCode === 200));
      res.on("error", () => resolve(false));
    });
    req.on("error", () => resolve(false));
    req.end();
  });
}

async function load(m: LoadRequest): Promise<LoadReply> {
  const agent = new Agent({ ca: m.target.ca, cert: m.target.cert, key: m.target.key, keepAlive: true, maxSockets: Infinity });
  const url = new URL(m.path, m.target.url);
  let requests = 0;
  let failures = 0;
  const end = Date.now() + m.durationMs;
  await Promise.all(
    Array.from({ length: m.concurrency }, async () => {
      while (Date.now() < end) {
        if (await get(agent, url)) requests++;
        else failures++;
      }
    }),
  );
  agent.destroy();
  return { type: "loaded", requests, failures };
}

if (process.send) {
  process.on("message", (m: LoadRequest) => {
    void load(m).then((reply) => process.send?.(reply));
  });
}
