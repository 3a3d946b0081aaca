/** The encryption-at-rest flags (the platform's names) and the options they give. */
import type { FlagSpec, FlagValues } from "../../../../shared/cli/flags.ts";
import type { EncryptionOptions } from "./encryption.ts";

export const ENCRYPTION_FLAGS: Record<string, FlagSpec> = {
  "encryption-provider-config": { kind: "string", help: "The file containing configuration for encryption providers to be used for storing secrets in etcd" },
  "encryption-provider-config-automatic-reload": { kind: "boolean", default: false, help: "Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change. Setting this to true disables the ability to uniquely identify distinct KMS plugins via the API server healthz endpoints." },
};

/** Undefined when no configuration file is given (values are stored as they are). */
export function encryptionOptionsFrom(flags: FlagValues): EncryptionOptions | undefined {
  const file = flags["encryption-provider-config"];
  if (!file) {
    if (flags["encryption-provider-config-automatic-reload"] === true) throw new Error("--encryption-provider-config-automatic-reload must be set with --encryption-provider-config");
    return undefined;
  }
  return { configFile: String(file), automaticReload: flags["encryption-provider-config-automatic-reload"] === true };
}
