/** EncryptionConfiguration files for tests: one entry per resource list, providers as YAML flow lines. */
import type { PlatformProfile } from "../../../../../shared/platform/index.ts";

export interface ConfigEntry {
  resources: string[];
  /** Each a provider in YAML flow style, e.g. `identity: {}`. */
  providers: string[];
}

/** A provider with keys (aescbc, aesgcm, secretbox) in flow style; the first key writes. */
export function keyedProvider(kind: "aescbc" | "aesgcm" | "secretbox", keys: ReadonlyArray<readonly [string, string]>): string {
  return `${kind}: {keys: [${keys.map(([name, secret]) => `{name: ${name}, secret: ${secret}}`).join(", ")}]}`;
}

export function encryptionConfigYaml(profile: PlatformProfile, entries: readonly ConfigEntry[]): string {
  return [
    `apiVersion: ${profile.apiVersion("apiserverConfig", "v1")}`,
    "kind: EncryptionConfiguration",
    "resources:",
    ...entries.flatMap((e) => [`- resources: [${e.resources.join(", ")}]`, "  providers:", ...e.providers.map((p) => `  - ${p}`)]),
    "",
  ].join("\n");
}
