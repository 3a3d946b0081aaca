/**
 * AlwaysAdmit and AlwaysDeny (default off; the platform keeps them for testing):
 * the first admits everything, the second rejects every write with 403
 * "admission control is denying all modifications".
 */
import type { AdmissionPlugin } from "../interfaces.ts";
import { admissionForbidden } from "./util.ts";

export const ALWAYS_ADMIT = "AlwaysAdmit";
export const ALWAYS_DENY = "AlwaysDeny";

export function alwaysAdmit(): AdmissionPlugin {
  return { name: ALWAYS_ADMIT, handles: () => true, admit: () => {} };
}

export function alwaysDeny(): AdmissionPlugin {
  return {
    name: ALWAYS_DENY,
    handles: () => true,
    admit: (a) => {
      throw admissionForbidden(a, "admission control is denying all modifications");
    },
  };
}
