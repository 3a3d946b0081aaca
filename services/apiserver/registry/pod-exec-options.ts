/**
 * The options of the pod connect subresources, as pure functions: the query of
 * `pods/{name}/exec`, `/attach` and `/portforward` read into PodExecOptions,
 * PodAttachOptions and PodPortForwardOptions (what admission sees for CONNECT; booleans
 * with the platform's ParseBool, `command` and `ports` repeated; 400 for a value that
 * does not parse or a stream choice without any of stdin, stdout, stderr), and the
 * node agent's path for the stream (`/exec/{ns}/{pod}/{container}` with `command`,
 * `input`, `output`, `error`, `tty`; `/attach/…`; `/portForward/{ns}/{pod}` with `port`).
 */
import { badRequest } from "../../../shared/api/status.ts";
import { queryBool } from "./query-bool.ts";
import type { JsonObject } from "../storage/object.ts";

export const CONNECT_SUBRESOURCES = ["exec", "attach", "portforward"] as const;
export type ConnectSubresource = (typeof CONNECT_SUBRESOURCES)[number];

/** The options kind of each subresource (core/v1). */
export const CONNECT_OPTIONS_KIND: Record<ConnectSubresource, string> = { exec: "PodExecOptions", attach: "PodAttachOptions", portforward: "PodPortForwardOptions" };

function ports(q: URLSearchParams): number[] {
  return q.getAll("ports").flatMap((raw) =>
    raw.split(",").map((p) => {
      const v = p.trim();
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < 1 || n > 65535) throw badRequest(`invalid port ${JSON.stringify(v)}: must be between 1 and 65535, inclusive`);
      return n;
    }),
  );
}

/** The options object of a connect request (kind and apiVersion set, absent fields left out). */
export function connectOptions(sub: ConnectSubresource, q: URLSearchParams): JsonObject {
  const base: JsonObject = { kind: CONNECT_OPTIONS_KIND[sub], apiVersion: "v1" };
  if (sub === "portforward") {
    const list = ports(q);
    return list.length > 0 ? { ...base, ports: list } : base;
  }
  const opts: JsonObject = { ...base, stdin: queryBool(q, "stdin"), stdout: queryBool(q, "stdout"), stderr: queryBool(q, "stderr"), tty: queryBool(q, "tty") };
  const container = q.get("container");
  if (container) opts.container = container;
  if (sub === "exec") opts.command = q.getAll("command");
  if (!opts.stdin && !opts.stdout && !opts.stderr) throw badRequest("you must specify at least 1 of stdin, stdout, stderr");
  return opts;
}

/** The agent's path and query for a connect stream. */
export function agentStreamPath(sub: ConnectSubresource, namespace: string, pod: string, container: string | undefined, opts: JsonObject): string {
  const q = new URLSearchParams();
  if (sub === "portforward") {
    for (const p of (opts.ports as number[] | undefined) ?? []) q.append("port", String(p));
    const query = q.toString();
    return `/portForward/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}${query ? `?${query}` : ""}`;
  }
  for (const c of (opts.command as string[] | undefined) ?? []) q.append("command", c);
  const flags: Array<[string, string]> = [
    ["stdin", "input"],
    ["stdout", "output"],
    ["stderr", "error"],
    ["tty", "tty"],
  ];
  for (const [field, param] of flags) if (opts[field] === true) q.set(param, "1");
  return `/${sub}/${[namespace, pod, container ?? ""].map(encodeURIComponent).join("/")}?${q.toString()}`;
}
