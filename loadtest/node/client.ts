/**
 * The harness's HTTPS client: one keep-alive agent shared by all virtual users, the
 * connection's identity on every request, and each answer timed from the request's
 * start to the last byte of its body. Network failures are answers with status 0.
 */
import { Agent, request } from "node:https";
import type { Connection } from "./connection.ts";

export interface Answer {
  status: number;
  ms: number;
  text: string;
  /** Set when status is 0: the network error. */
  error?: string;
}

export class LoadClient {
  private readonly agent: Agent;
  private readonly base: URL;

  constructor(
    private readonly conn: Connection,
    maxSockets: number,
  ) {
    this.base = new URL(conn.url);
    this.agent = new Agent({
      keepAlive: true,
      maxSockets,
      ca: conn.ca,
      cert: conn.cert,
      key: conn.key,
      rejectUnauthorized: !conn.insecure,
    });
  }

  /** Sends one request; `body` is sent as JSON (or as given for patch content types). */
  send(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Answer> {
    const data = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.conn.token !== undefined) headers.Authorization = `Bearer ${this.conn.token}`;
    if (data !== undefined) {
      headers["Content-Type"] = contentType;
      headers["Content-Length"] = String(Buffer.byteLength(data));
    }
    const started = performance.now();
    return new Promise((resolve) => {
      const req = request(new URL(path, this.base), { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (err) => resolve({ status: 0, ms: performance.now() - started, text: "", error: err.message }));
      });
      req.on("error", (err) => resolve({ status: 0, ms: performance.now() - started, text: "", error: err.message }));
      req.end(data);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
