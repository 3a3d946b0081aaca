/**
 * Child process of the API benchmark that holds the watch clients, so that their
 * parsing runs outside the server's event loop and the measured delay is the
 * server's. Protocol over the IPC channel (one request at a time; open and collect
 * may repeat, a collect closes the watches it reports on):
 *   parent → {type:"open", target, path, watchers}   child → {type:"opened", connected}
 *   parent → {type:"collect", sentAt, expected, timeoutMs}   child → {type:"result", ...WatchDelivery}
 * Each event frame is read only far enough to get its type and object name (no full
 * JSON parse): the client does as little work per event as it can.
 */
import { Agent, request } from "node:https";
import type { IncomingMessage } from "node:http";

export interface WatchTarget {
  url: string;
  ca: string;
  cert: string;
  key: string;
}

export type ParentMessage =
  | { type: "open"; target: WatchTarget; path: string; watchers: number }
  | { type: "collect"; sentAt: Record<string, number>; expected: number; timeoutMs: number };

/** What the watchers received: counts and delays (ms) from a write being sent to its event arriving. */
export interface WatchDelivery {
  delivered: number;
  /** Events whose object was not one of the writes (should be 0). */
  unexpected: number;
  /** Watchers that ended or failed before the end. */
  broken: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export type ChildMessage = { type: "opened"; connected: number } | ({ type: "result" } & WatchDelivery);

const NAME_MARK = '"metadata":{"name":"';

interface Arrivals {
  names: string[];
  times: number[];
  ended: boolean;
}

function openWatch(agent: Agent, target: WatchTarget, path: string, arrivals: Arrivals): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(new URL(path, target.url), { method: "GET", agent }, (res: IncomingMessage) => {
      resolve(res.statusCode === 200);
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        const now = Date.now();
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const at = line.indexOf(NAME_MARK);
          if (at < 0) continue;
          const start = at + NAME_MARK.length;
          arrivals.names.push(line.slice(start, line.indexOf('"', start)));
          arrivals.times.push(now);
        }
      });
      res.on("end", () => (arrivals.ended = true));
      res.on("error", () => (arrivals.ended = true));
    });
    req.on("error", () => {
      arrivals.ended = true;
      resolve(false);
    });
    req.end();
  });
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function summarize(all: Arrivals[], sentAt: Record<string, number>): WatchDelivery {
  const latencies: number[] = [];
  let unexpected = 0;
  for (const a of all) {
    for (let i = 0; i < a.names.length; i++) {
      const sent = sentAt[a.names[i]];
      if (sent === undefined) unexpected++;
      else latencies.push(a.times[i] - sent);
    }
  }
  latencies.sort((x, y) => x - y);
  return {
    delivered: latencies.length,
    unexpected,
    broken: all.filter((a) => a.ended).length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? 0,
  };
}

async function waitForAll(all: Arrivals[], expected: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && all.some((a) => a.names.length < expected && !a.ended)) await new Promise((r) => setTimeout(r, 50));
}

function main(): void {
  const send = (m: ChildMessage): void => void process.send?.(m);
  let watches: Arrivals[] = [];
  let agent: Agent | undefined;
  process.on("message", (m: ParentMessage) => {
    void (async () => {
      if (m.type === "open") {
        agent?.destroy();
        agent = new Agent({ ca: m.target.ca, cert: m.target.cert, key: m.target.key, keepAlive: false, maxSockets: Infinity });
        watches = Array.from({ length: m.watchers }, () => ({ names: [], times: [], ended: false }));
        const ok = await Promise.all(watches.map((a) => openWatch(agent as Agent, m.target, m.path, a)));
        send({ type: "opened", connected: ok.filter(Boolean).length });
      } else {
        await waitForAll(watches, m.expected, m.timeoutMs);
        const result = summarize(watches, m.sentAt);
        // The watches end here: their ends are not breaks.
        agent?.destroy();
        agent = undefined;
        watches = [];
        send({ type: "result", ...result });
      }
    })();
  });
}

if (process.send) {
  main();
  process.on("disconnect", () => process.exit(0));
}
