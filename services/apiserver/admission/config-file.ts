/**
 * `--admission-control-config-file`: an AdmissionConfiguration
 * (`apiserver.config.<domain>/v1`, also v1alpha1) listing per-plugin
 * configuration, each either inline (`configuration`) or in a file (`path`,
 * relative to the configuration file). JSON or YAML. Errors name the file and
 * the entry; start-up fails on them.
 */
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import { parse as parseYaml } from "yaml";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../storage/object.ts";

/** Plugin name → its configuration object. */
export type PluginConfigs = ReadonlyMap<string, JsonObject>;

function parseDoc(text: string, what: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export async function readAdmissionConfig(file: string, profile: PlatformProfile): Promise<PluginConfigs> {
  const what = `admission configuration ${file}`;
  const root = parseDoc(await readFile(file, "utf8"), what);
  if (!isObject(root)) throw new Error(`${what}: not an object`);
  const group = profile.group("apiserverConfig");
  const versions = [`${group}/v1`, `${group}/v1alpha1`];
  if (root.kind !== "AdmissionConfiguration") throw new Error(`${what}: kind must be "AdmissionConfiguration", got ${JSON.stringify(root.kind)}`);
  if (typeof root.apiVersion !== "string" || !versions.includes(root.apiVersion)) {
    throw new Error(`${what}: unsupported apiVersion ${JSON.stringify(root.apiVersion)}; expected ${versions[0]}`);
  }
  const out = new Map<string, JsonObject>();
  const plugins = root.plugins ?? [];
  if (!Array.isArray(plugins)) throw new Error(`${what}: plugins must be a list`);
  for (const [i, entry] of plugins.entries()) {
    const field = `plugins[${i}]`;
    if (!isObject(entry) || typeof entry.name !== "string" || entry.name === "") throw new Error(`${what}: ${field}.name: Required value`);
    if (out.has(entry.name)) throw new Error(`${what}: ${field}.name: Duplicate value: ${JSON.stringify(entry.name)}`);
    if (entry.configuration !== undefined && entry.path !== undefined) throw new Error(`${what}: ${field}: path and configuration are mutually exclusive`);
    let config: unknown = entry.configuration;
    if (typeof entry.path === "string" && entry.path !== "") {
      const path = isAbsolute(entry.path) ? entry.path : join(dirname(file), entry.path);
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch (err) {
        throw new Error(`${what}: ${field}.path: unable to read ${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      config = parseDoc(text, `${what}: ${field}.path ${path}`);
    }
    if (config === undefined || config === null) continue;
    if (!isObject(config)) throw new Error(`${what}: ${field}.configuration must be an object`);
    out.set(entry.name, config);
  }
  return out;
}
