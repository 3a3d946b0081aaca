/**
 * admissionregistration/v1alpha1 (alpha since 1.32): MutatingAdmissionPolicy and its
 * binding with the fields of admissionregistration/v1beta1 (beta since 1.34). Served only
 * while the MutatingAdmissionPolicy feature gate is on and `--runtime-config` enables the
 * version (alpha versions are off by default). Objects are stored as v1beta1.
 */
import type { KindDefinition } from "../../schema/types.ts";
import { mutatingAdmissionPolicyKinds } from "./admissionregistration-v1beta1.ts";
import { atVersion } from "./pre-release-version.ts";

export const kinds: KindDefinition[] = mutatingAdmissionPolicyKinds.map((k) => atVersion(k, "v1alpha1"));
