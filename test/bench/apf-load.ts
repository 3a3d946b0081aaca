/**
 * Child process of the APF benchmark: the noisy tenant, so that its TLS and parsing
 * work runs outside the process that measures the other tenant. Protocol over IPC:
 *   parent → {type:"flood", url, ca, token, path, concurrency}   child → {type:"flooding"}
 *     `concurrency` loops of GET `path` (bodies read and dropped) until told to stop;
 *   parent → {type:"stop"}   child → {type:"stopped", ok, rejected, other, cpuMs}
 *     the loops end; the counts of 200, 429 and other answers since the flood began, and
 *     the CPU time this process used meanwhile (it shares the machine's cores).
 */
import { Agent, request } from "node:https";

export type ApfLoadRequest = { type: "flood"; url: string; ca: string; token: string; path: string; concurrency: number } | { type: "stop" };
export type ApfLoadReply = { type: "flooding" } | { type: "stopped"; ok: number; rejected: number; other: number; cpuMs: number };

let running = false;
let loops: Promise<void>[] = [];
const counts = { ok: 0, rejected: 0, other: 0 };
let cpuAtFlood = process.cpuUsage();

function get(agent: Agent, url: URL, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("error", () => resolve(0));
    req.end();
  });
}

async function loop(agent: Agent, url: URL, token: string): Promise<void> {
  while (running) {
    const status = await get(agent, url, token);
    if (status === 200) counts.ok++;
    else if (status === 429) counts.rejected++;
    else counts.other++;
  }
}

process.on("message", (msg: ApfLoadRequest) => {
  if (msg.type === "flood") {
    const agent = new Agent({ ca: msg.ca, keepAlive: true, maxSockets: Infinity });
    const url = new URL(msg.path, msg.url);
    running = true;
    counts.ok = counts.rejected = counts.other = 0;
    cpuAtFlood = process.cpuUsage();
    loops = Array.from({ length: msg.concurrency }, () => loop(agent, url, msg.token));
    process.send?.({ type: "flooding" } satisfies ApfLoadReply);
    return;
  }
  running = false;
  void Promise.all(loops).then(() => {
    const cpu = process.cpuUsage(cpuAtFlood);
    process.send?.({ type: "stopped", ...counts, cpuMs: (cpu.user + cpu.system) / 1000 } satisfies ApfLoadReply);
  });
});
