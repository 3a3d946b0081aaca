/**
 * The controller manager's own HTTPS port: `/healthz`, `/livez`, `/readyz` (each also
 * per check: `/healthz/<check>`; `?verbose` lists every check; `?exclude=<check>`
 * skips one) and `/metrics` (Prometheus text). Checks are named as the platform's:
 * `ping` always passes, `leaderElection` fails when this instance leads but has not
 * renewed its lease for longer than the lease duration plus 20 s.
 * Answers: 200 `ok`, or 500 with `[-]<check> failed: reason withheld` lines and
 * `<endpoint> check failed` (the failing reason is logged, never sent).
 * With `access`, every request passes its check first (delegated authentication and
 * authorization, delegated-access.ts); a refusal is sent as its Status.
 */
import { createServer as createHttpsServer } from "node:https";
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { tlsServerOptions, type TlsFlags } from "../../../shared/tls/options.ts";
import type { DelegatedAccess } from "./delegated-access.ts";

/** A named check: undefined when healthy, the reason otherwise. */
export interface HealthCheck {
  name: string;
  check(): string | undefined;
}

export interface HealthServerOptions {
  host: string;
  port: number;
  certPem: string;
  keyPem: string;
  /** `--tls-min-version` / `--tls-cipher-suites`. */
  tls?: TlsFlags;
  checks: readonly HealthCheck[];
  metrics: MetricsRegistry;
  onFailure?: (endpoint: string, check: string, reason: string) => void;
  access?: Pick<DelegatedAccess, "clientCaPem" | "checkAccess">;
}

export interface HealthServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

function report(endpoint: string, checks: readonly HealthCheck[], verbose: boolean, exclude: readonly string[], onFailure?: HealthServerOptions["onFailure"]): { status: 200 | 500; body: string } {
  const lines: string[] = [];
  let failed = false;
  for (const c of checks) {
    if (exclude.includes(c.name)) {
      lines.push(`[+]${c.name} excluded: ok`);
      continue;
    }
    const reason = c.check();
    if (reason === undefined) lines.push(`[+]${c.name} ok`);
    else {
      failed = true;
      lines.push(`[-]${c.name} failed: reason withheld`);
      onFailure?.(endpoint, c.name, reason);
    }
  }
  if (failed) return { status: 500, body: `${lines.join("\n")}\n${endpoint} check failed\n` };
  return { status: 200, body: verbose ? `${lines.join("\n")}\n${endpoint} check passed\n` : "ok" };
}

export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const app = new Hono<{ Bindings: { incoming: IncomingMessage } }>();
  const access = opts.access;
  if (access) {
    app.use("*", async (c, next) => {
      const denial = await access.checkAccess(c.env.incoming, c.req.path);
      if (denial) return c.json(denial.body, denial.status);
      await next();
    });
  }
  for (const endpoint of ["healthz", "livez", "readyz"]) {
    app.get(`/${endpoint}`, (c) => {
      const r = report(endpoint, opts.checks, c.req.query("verbose") !== undefined, c.req.queries("exclude") ?? [], opts.onFailure);
      return c.text(r.body, r.status);
    });
    app.get(`/${endpoint}/:check`, (c) => {
      const check = opts.checks.find((x) => x.name === c.req.param("check"));
      if (!check) return c.text("404 page not found\n", 404);
      const reason = check.check();
      if (reason !== undefined) {
        opts.onFailure?.(endpoint, check.name, reason);
        return c.text(`internal server error: ${check.name} failed\n`, 500);
      }
      return c.text("ok", 200);
    });
  }
  app.get("/metrics", async (c) => c.body(await opts.metrics.text(), 200, { "content-type": opts.metrics.contentType }));
  app.notFound((c) => c.text("404 page not found\n", 404));
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, createServer: createHttpsServer, serverOptions: { key: opts.keyPem, cert: opts.certPem, ...tlsServerOptions(opts.tls), ...(access?.clientCaPem ? { requestCert: true, rejectUnauthorized: false, ca: access.clientCaPem } : {}) }, hostname: opts.host, port: opts.port }, () => resolve(s));
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  const shown = opts.host === "0.0.0.0" || opts.host === "::" ? "127.0.0.1" : opts.host;
  return {
    url: `https://${shown.includes(":") ? `[${shown}]` : shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
