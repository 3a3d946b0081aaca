/**
 * One-shot HTTPS calls for tests that need per-call client certificates and raw
 * header control (repeated headers), with the body parsed as JSON when it is JSON.
 * Also a temporary directory for configuration files written by tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface HttpResult {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

export interface CallOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string | string[]>;
  body?: unknown;
  client?: { certPem: string; keyPem: string };
  contentType?: string;
}

export function call(url: string, ca: string, o: CallOptions = {}, defaultPath = "/"): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const data = o.body === undefined ? undefined : JSON.stringify(o.body);
    const req = request(
      new URL(o.path ?? defaultPath, url),
      {
        method: o.method ?? (data ? "POST" : "GET"),
        ca,
        cert: o.client?.certPem,
        key: o.client?.keyPem,
        agent: false,
        headers: { accept: "application/json", ...(data ? { "content-type": o.contentType ?? "application/json" } : {}), ...(o.headers ?? {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body, text });
        });
      },
    );
    req.on("error", reject);
    if (data) req.write(data);
    req.end();
  });
}

export class TempDir {
  readonly path: string;
  constructor(prefix = "test-") {
    this.path = mkdtempSync(join(tmpdir(), prefix));
  }
  write(name: string, text: string): string {
    const p = join(this.path, name);
    writeFileSync(p, text);
    return p;
  }
  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}
