/**
 * Operator endpoints beside the API, authorized like every non-resource path:
 * - `/logs/` (`--enable-logs-handler`, on by default as on the platform): a directory
 *   listing of the log directory and its files' contents, never outside it. Off, the
 *   path is a 404 Status naming the flag.
 * - `/debug/pprof/profile?seconds=N` (`--profiling`, off by default here): a CPU
 *   profile of the running replica taken through node:inspector for N seconds
 *   (default 30, at most 300), in the inspector's .cpuprofile JSON form. Off, a 404
 *   Status naming the flag. One profile at a time (a second one is 409).
 */
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { Session } from "node:inspector";
import { join, sep } from "node:path";
import { statusError } from "../../../shared/api/status.ts";
import type { FlagSpec, FlagValues } from "../../../shared/cli/flags.ts";
import type { NonResourceHandler } from "../endpoints/non-resource.ts";

export interface DebugOptions {
  /** `--enable-logs-handler`. */
  logsHandler: boolean;
  /** The directory `/logs/` serves (the platform serves /var/log). */
  logsDir: string;
  /** `--profiling`. */
  profiling: boolean;
}

export const DEFAULT_DEBUG_OPTIONS: DebugOptions = { logsHandler: true, logsDir: "/var/log", profiling: false };

export const DEBUG_FLAGS: Record<string, FlagSpec> = {
  "enable-logs-handler": { kind: "boolean", default: true, help: "If true, install a /logs handler for the apiserver logs." },
  profiling: { kind: "boolean", default: false, help: "Enable CPU profiling via web interface host:port/debug/pprof/profile (off by default here)." },
};

export function debugOptionsFrom(flags: FlagValues): DebugOptions {
  return { logsHandler: flags["enable-logs-handler"] !== false, logsDir: DEFAULT_DEBUG_OPTIONS.logsDir, profiling: flags.profiling === true };
}

const MAX_PROFILE_SECONDS = 300;

function disabled(path: string, flag: string): Error {
  return statusError({ code: 404, reason: "NotFound", message: `${path} is disabled on this server (${flag})` });
}

function notFound(): Error {
  return statusError({ code: 404, reason: "NotFound", message: "the server could not find the requested resource" });
}

const escapeHtml = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** `/logs/<rest>`: a listing for directories, the bytes of files; nothing outside `root`. */
function logsHandler(root: string): NonResourceHandler {
  return async (_req, url) => {
    if (url.pathname === "/logs") return new Response(null, { status: 301, headers: { location: "/logs/" } });
    const rel = decodeURIComponent(url.pathname.slice("/logs/".length));
    let path: string;
    let base: string;
    try {
      base = await realpath(root);
      path = await realpath(join(base, rel));
    } catch {
      throw notFound();
    }
    if (path !== base && !path.startsWith(base + sep)) throw notFound();
    const info = await stat(path);
    if (info.isDirectory()) {
      const names = (await readdir(path, { withFileTypes: true })).map((d) => (d.isDirectory() ? `${d.name}/` : d.name)).sort();
      const body = `<pre>\n${names.map((n) => `<a href="${escapeHtml(encodeURIComponent(n).replace(/%2F$/, "/"))}">${escapeHtml(n)}</a>`).join("\n")}\n</pre>\n`;
      return new Response(body, { status: 200, headers: { "content-type": "text/html; charset=utf-8" } });
    }
    return new Response(await readFile(path), { status: 200, headers: { "content-type": "text/plain; charset=utf-8" } });
  };
}

function post(session: Session, method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))));
}

function profileHandler(): NonResourceHandler {
  let running = false;
  return async (_req, url) => {
    const raw = url.searchParams.get("seconds") ?? "30";
    const seconds = Number(raw);
    if (!/^\d+$/.test(raw) || seconds < 1 || seconds > MAX_PROFILE_SECONDS) {
      throw statusError({ code: 400, reason: "BadRequest", message: `invalid seconds ${JSON.stringify(raw)}: a whole number from 1 to ${MAX_PROFILE_SECONDS}` });
    }
    if (running) throw statusError({ code: 409, reason: "Conflict", message: "a CPU profile is already being taken" });
    running = true;
    const session = new Session();
    try {
      session.connect();
      await post(session, "Profiler.enable");
      await post(session, "Profiler.start");
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const { profile } = (await post(session, "Profiler.stop")) as { profile: unknown };
      return new Response(JSON.stringify(profile), { status: 200, headers: { "content-type": "application/json", "content-disposition": 'attachment; filename="profile.cpuprofile"' } });
    } finally {
      session.disconnect();
      running = false;
    }
  };
}

/** The routes: exact paths and prefixes for the replica's non-resource router. */
export function debugRoutes(opts: DebugOptions = DEFAULT_DEBUG_OPTIONS): { exact: Array<[string, NonResourceHandler]>; prefix: Array<[string, NonResourceHandler]> } {
  const logs: NonResourceHandler = opts.logsHandler ? logsHandler(opts.logsDir) : () => Promise.reject(disabled("/logs", "--enable-logs-handler=false"));
  const profile: NonResourceHandler = opts.profiling ? profileHandler() : () => Promise.reject(disabled("/debug/pprof", "--profiling is off"));
  return {
    exact: [["/logs", logs], ["/debug/pprof/profile", profile]],
    prefix: [["/logs/", logs], ["/debug/pprof/", opts.profiling ? () => Promise.reject(notFound()) : profile]],
  };
}
