/**
 * The admission flags of the apiserver: `--enable-admission-plugins`,
 * `--disable-admission-plugins` (comma-separated, repeatable) and
 * `--admission-control-config-file`. Parsing only; names are checked against
 * the plugin registry by `resolveEnabled` (plugins.ts) at start-up.
 */
import type { FlagSpec, FlagValues } from "../../../shared/cli/flags.ts";
import type { AdmissionFlags } from "./plugins.ts";

export const ADMISSION_FLAGS: Record<string, FlagSpec> = {
  "enable-admission-plugins": {
    kind: "list",
    help: "admission plugins that should be enabled in addition to default enabled ones (NamespaceLifecycle, LimitRanger, ServiceAccount, TaintNodesByCondition, PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize, RuntimeClass, CertificateApproval, CertificateSigning, ClusterTrustBundleAttest, CertificateSubjectRestriction, DefaultIngressClass, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota). The order of plugins in this flag does not matter.",
  },
  "disable-admission-plugins": {
    kind: "list",
    help: "admission plugins that should be disabled although they are in the default enabled plugins list. The order of plugins in this flag does not matter.",
  },
  "admission-control-config-file": { kind: "string", help: "File with admission control configuration (AdmissionConfiguration)." },
};

function names(v: FlagValues[string]): string[] {
  const list = Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
  return list.flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) => s !== "");
}

/** The admission flags out of parsed flag values (parseFlags with ADMISSION_FLAGS merged in). */
export function admissionFlagsFrom(values: FlagValues): AdmissionFlags {
  const configFile = values["admission-control-config-file"];
  return {
    enable: names(values["enable-admission-plugins"]),
    disable: names(values["disable-admission-plugins"]),
    configFile: typeof configFile === "string" && configFile !== "" ? configFile : undefined,
  };
}
