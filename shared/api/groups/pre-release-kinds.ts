/**
 * The alpha and beta group versions of release 1.35 for kinds this server serves, which
 * are not part of `builtinKinds`: a replica adds them to the kinds `--runtime-config` can
 * enable (all are off by default). MutatingAdmissionPolicy's versions also need the
 * feature gate of that name.
 */
import type { KindDefinition } from "../../schema/types.ts";
import { kinds as admissionregistrationV1alpha1 } from "./admissionregistration-v1alpha1.ts";
import { mutatingAdmissionPolicyKinds } from "./admissionregistration-v1beta1.ts";
import { kinds as networkingV1beta1 } from "./networking-v1beta1.ts";
import { kinds as storageV1alpha1 } from "./storage-v1alpha1.ts";
import { kinds as storageV1beta1 } from "./storage-v1beta1.ts";

/** Pre-release versions without a feature gate of their own. */
export const preReleaseKinds: readonly KindDefinition[] = [...networkingV1beta1, ...storageV1beta1, ...storageV1alpha1];

export const MUTATING_ADMISSION_POLICY_GATE = "MutatingAdmissionPolicy";

/** Every served version of MutatingAdmissionPolicy and its binding (the gate's kinds). */
export const mutatingAdmissionPolicyVersions: readonly KindDefinition[] = [...mutatingAdmissionPolicyKinds, ...admissionregistrationV1alpha1];
