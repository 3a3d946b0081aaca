/**
 * How the agent's HTTPS paths map to authorization attributes (pure), as the
 * platform's agent maps them: resource `nodes`, name = this node, API version v1,
 * verb from the HTTP method, and a subresource by path: /stats → stats, /metrics →
 * metrics, /logs → log, /checkpoint → checkpoint; /pods, /runningpods, /healthz and
 * /configz → their fine-grained subresource (KubeletFineGrainedAuthz) then `proxy`;
 * anything else → proxy. A request is allowed when any of its attributes is allowed.
 */

export interface NodeRequestAttributes {
  verb: string;
  resource: "nodes";
  subresource: string;
  name: string;
  apiVersion: "v1";
  path: string;
}

const VERBS: Record<string, string> = { POST: "create", GET: "get", HEAD: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

/** True for `prefix` itself and any path below it. */
export function isSubpath(path: string, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, "");
  return path === p || path.startsWith(`${p}/`);
}

function subresourcesOf(path: string, fineGrained: boolean): string[] {
  if (isSubpath(path, "/stats")) return ["stats"];
  if (isSubpath(path, "/metrics")) return ["metrics"];
  if (isSubpath(path, "/logs")) return ["log"];
  if (isSubpath(path, "/checkpoint")) return ["checkpoint"];
  const fine: Array<[string, string]> = [
    ["/pods", "pods"],
    ["/runningpods", "pods"],
    ["/healthz", "healthz"],
    ["/configz", "configz"],
  ];
  for (const [prefix, sub] of fine) if (isSubpath(path, prefix)) return fineGrained ? [sub, "proxy"] : ["proxy"];
  return ["proxy"];
}

export function requestAttributes(method: string, path: string, nodeName: string, fineGrained: boolean): NodeRequestAttributes[] {
  const verb = VERBS[method.toUpperCase()] ?? "";
  return subresourcesOf(path, fineGrained).map((subresource) => ({ verb, resource: "nodes", subresource, name: nodeName, apiVersion: "v1", path }));
}
