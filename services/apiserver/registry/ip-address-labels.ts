/**
 * The labels the ClusterIP allocator puts on its IPAddress records (as the platform's
 * allocator does): the address family and the allocator as manager. The repair loop
 * looks after records that carry them and rewrites Service records that lack them.
 * Names come from the naming profile.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { IPFamily } from "./service-ranges.ts";

export type IPAddressLabels = (family: IPFamily) => Record<string, string>;

export function ipAddressLabels(profile: PlatformProfile): IPAddressLabels {
  return (family) => ({ [profile.labels.ipAddressFamily]: family, [profile.labels.ipAddressManagedBy]: profile.ipAllocatorName });
}

/** Whether labels mark a record as the allocator's, and whether its family label is `family`. */
export function allocatorLabelState(profile: PlatformProfile, labels: Readonly<Record<string, unknown>>, family: IPFamily | undefined): { managed: boolean; labelsOk: boolean } {
  const managed = labels[profile.labels.ipAddressManagedBy] === profile.ipAllocatorName;
  return { managed, labelsOk: managed && family !== undefined && labels[profile.labels.ipAddressFamily] === family };
}
