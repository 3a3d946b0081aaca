/**
 * The merge of aggregated servers' OpenAPI v2 documents into this server's (pure),
 * as the platform's aggregator does it:
 *  - only a backend's `/apis/...` paths are taken (its /api, /version, /healthz... are
 *    its own business), and a path this server (or an earlier backend) already has
 *    is ignored;
 *  - a definition whose name is taken by a different definition is renamed
 *    `<name>_v2`, `<name>_v3`... (the first free one) and every `$ref` of that
 *    backend's document is rewritten to the new name; equal definitions are shared;
 *  - the same is done for the top-level `parameters`.
 * Backends are merged in the order given (the aggregator passes them by group
 * priority, then version priority, then name). Inputs are not modified.
 */
type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const DEF_REF = "#/definitions/";
const PARAM_REF = "#/parameters/";

/** `v` with every `$ref` to a renamed definition or parameter rewritten. */
function rewriteRefs(v: unknown, defs: Map<string, string>, params: Map<string, string>): unknown {
  if (Array.isArray(v)) return v.map((x) => rewriteRefs(x, defs, params));
  if (!isObj(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "$ref" && typeof x === "string") {
      if (x.startsWith(DEF_REF) && defs.has(x.slice(DEF_REF.length))) out[k] = DEF_REF + defs.get(x.slice(DEF_REF.length));
      else if (x.startsWith(PARAM_REF) && params.has(x.slice(PARAM_REF.length))) out[k] = PARAM_REF + params.get(x.slice(PARAM_REF.length));
      else out[k] = x;
    } else out[k] = rewriteRefs(x, defs, params);
  }
  return out;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (!isObj(v)) return JSON.stringify(v) ?? "null";
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
    .join(",")}}`;
}

/** Renames of the entries of `source` whose names `dest` holds with a different value. */
function renames(dest: Json, source: Json): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set(Object.keys(dest));
  for (const [name, value] of Object.entries(source)) {
    if (!taken.has(name) || canonical(dest[name]) === canonical(value)) continue;
    let n = 2;
    while (taken.has(`${name}_v${n}`) && canonical(dest[`${name}_v${n}`]) !== canonical(value)) n++;
    out.set(name, `${name}_v${n}`);
    taken.add(`${name}_v${n}`);
  }
  return out;
}

/** `local` with the `/apis/` paths, definitions and parameters of each backend document merged in. */
export function mergeOpenApiV2(local: Json, backends: readonly Json[]): Json {
  const paths: Json = { ...(isObj(local.paths) ? local.paths : {}) };
  const definitions: Json = { ...(isObj(local.definitions) ? local.definitions : {}) };
  const parameters: Json = { ...(isObj(local.parameters) ? local.parameters : {}) };
  for (const doc of backends) {
    const ownPaths = Object.entries(isObj(doc.paths) ? doc.paths : {}).filter(([p]) => p.startsWith("/apis/") && !(p in paths));
    if (ownPaths.length === 0) continue;
    const defs = isObj(doc.definitions) ? doc.definitions : {};
    const params = isObj(doc.parameters) ? doc.parameters : {};
    const defRenames = renames(definitions, defs);
    const paramRenames = renames(parameters, params);
    for (const [name, value] of Object.entries(defs)) definitions[defRenames.get(name) ?? name] = rewriteRefs(value, defRenames, paramRenames);
    for (const [name, value] of Object.entries(params)) parameters[paramRenames.get(name) ?? name] = rewriteRefs(value, defRenames, paramRenames);
    for (const [p, item] of ownPaths) paths[p] = rewriteRefs(item, defRenames, paramRenames);
  }
  const out: Json = { ...local, paths, definitions };
  if (Object.keys(parameters).length > 0) out.parameters = parameters;
  return out;
}
