/**
 * Which built-in group versions exist at a release, for `--emulated-version` and the
 * `--runtime-config` defaults, as the platform's API lifecycle tables say (release 1.35):
 *   - INTRODUCED_IN: group versions (`<group key>/<version>`) and resources that came to an
 *     older group version (`<group key>/<version>/<plural>`), with the release that first
 *     served them; below it a replica does not serve them;
 *   - REMOVED_IN: pre-release versions the platform stops serving at a release; a replica
 *     serves them only while it emulates an earlier one;
 *   - LATE_BETAS: betas introduced after 1.22, off unless `--runtime-config` enables them.
 * Pure: kinds in, kinds out.
 */
import { builtinKinds } from "../../../shared/api/groups/index.ts";
import { MUTATING_ADMISSION_POLICY_GATE, mutatingAdmissionPolicyVersions, preReleaseKinds } from "../../../shared/api/groups/pre-release-kinds.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";

export interface Release {
  major: number;
  minor: number;
}

const r = (minor: number): Release => ({ major: 1, minor });

export const INTRODUCED_IN: Readonly<Record<string, Release>> = {
  "admissionregistration/v1alpha1": r(32),
  "admissionregistration/v1beta1": r(34),
  "networking/v1beta1": r(31),
  "networking/v1/ipaddresses": r(33),
  "networking/v1/servicecidrs": r(33),
  "storage/v1alpha1": r(29),
  "storage/v1beta1": r(31),
  "storage/v1/volumeattributesclasses": r(34),
};

export const REMOVED_IN: Readonly<Record<string, Release>> = {
  "storage/v1alpha1": r(35),
};

export const LATE_BETAS: ReadonlySet<string> = new Set<string>(["admissionregistration/v1beta1", "networking/v1beta1", "storage/v1beta1"]);

function atOrBefore(a: Release, b: Release): boolean {
  return a.major < b.major || (a.major === b.major && a.minor <= b.minor);
}

function lookup(table: Readonly<Record<string, Release>>, k: KindDefinition): Release | undefined {
  return table[`${k.group}/${k.version}`] ?? table[`${k.group}/${k.version}/${k.plural}`];
}

/** Whether a kind's group version is served at a release (introduced by then, not yet removed). */
export function servedAt(k: KindDefinition, release: Release): boolean {
  const since = lookup(INTRODUCED_IN, k);
  const until = lookup(REMOVED_IN, k);
  return (!since || atOrBefore(since, release)) && (!until || !atOrBefore(until, release));
}

/** The kinds that exist at an emulated release. */
export function availableAt(kinds: readonly KindDefinition[], emulation: Release): KindDefinition[] {
  return kinds.filter((k) => servedAt(k, emulation));
}

/** Every kind a replica knows (served or not): the base kinds, the pre-release versions and the gated kinds. */
export function knownKinds(base: readonly KindDefinition[]): KindDefinition[] {
  return [...base, ...preReleaseKinds, ...mutatingAdmissionPolicyVersions];
}

/** The kinds `--runtime-config` may turn on: the known ones whose gate is on, that exist at the emulated release. */
export function candidateKinds(base: readonly KindDefinition[], gateEnabled: (gate: string) => boolean, emulation: Release): KindDefinition[] {
  const gated = gateEnabled(MUTATING_ADMISSION_POLICY_GATE) ? mutatingAdmissionPolicyVersions : [];
  return availableAt([...base, ...preReleaseKinds, ...gated], emulation);
}

/** Every kind a `--runtime-config` key may name, for the check before start-up. */
export function allKnownKinds(profile: PlatformProfile): KindDefinition[] {
  return knownKinds(builtinKinds(profile));
}
