/**
 * The platform's JSON patch library: `jsonpatch.escapeKey(<string>)` escapes a
 * key for use in a JSON pointer path (`~` → `~0`, `/` → `~1`). Pure.
 */
import type { Environment } from "@marcbachmann/cel-js";

class JSONPatchNamespace {}

export function escapeKey(k: string): string {
  return k.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function registerJSONPatch(env: Environment): Environment {
  return env
    .registerType("kubernetes.JSONPatchNamespace", JSONPatchNamespace)
    .registerConstant("jsonpatch", "kubernetes.JSONPatchNamespace", new JSONPatchNamespace())
    .registerFunction("kubernetes.JSONPatchNamespace.escapeKey(string): string", (_ns: JSONPatchNamespace, k: string) => escapeKey(k));
}
