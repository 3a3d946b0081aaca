/**
 * The served-versions tables against the platform's lifecycle of release 1.35, per
 * emulated release (1.32 to 1.35): which group versions and resources exist, which are
 * off by default, and that a gated kind needs its gate.
 */
import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../../shared/api/groups/index.ts";
import { getProfile, type GroupKey } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { applyRuntimeConfig } from "./runtime-config.ts";
import { availableAt, candidateKinds, knownKinds, type Release } from "./served-versions.ts";

const profile = getProfile("kubernetes");
const known = knownKinds(builtinKinds(profile));
const id = (k: KindDefinition) => `${profile.apiVersion(k.group, k.version)}/${k.plural}`;
const res = (group: GroupKey, version: string, plural: string) => `${profile.apiVersion(group, version)}/${plural}`;
const at = (minor: number): Release => ({ major: 1, minor });
const existsAt = (minor: number) => new Set(availableAt(known, at(minor)).map(id));

// [resource, first emulated release serving it, first release no longer serving it]
const LIFECYCLE: Array<[string, number, number?]> = [
  [res("networking", "v1", "ipaddresses"), 33],
  [res("networking", "v1", "servicecidrs"), 33],
  [res("networking", "v1beta1", "ipaddresses"), 31],
  [res("networking", "v1beta1", "servicecidrs"), 31],
  [res("storage", "v1", "volumeattributesclasses"), 34],
  [res("storage", "v1beta1", "volumeattributesclasses"), 31],
  [res("storage", "v1alpha1", "volumeattributesclasses"), 29, 35],
  [res("admissionregistration", "v1beta1", "mutatingadmissionpolicies"), 34],
  [res("admissionregistration", "v1beta1", "mutatingadmissionpolicybindings"), 34],
  [res("admissionregistration", "v1alpha1", "mutatingadmissionpolicies"), 32],
  [res("admissionregistration", "v1alpha1", "mutatingadmissionpolicybindings"), 32],
  // GA before the emulation floor: served at every emulated release.
  [res("networking", "v1", "ingresses"), 19],
  [res("storage", "v1", "csistoragecapacities"), 24],
  [res("admissionregistration", "v1", "validatingadmissionpolicies"), 30],
  [res("flowcontrol", "v1", "flowschemas"), 29],
  [res("authentication", "v1", "selfsubjectreviews"), 28],
  [res("core", "v1", "pods"), 0],
];

describe("served versions per emulated release", () => {
  it.each(LIFECYCLE.flatMap(([resource, since, until]) => [32, 33, 34, 35].map((minor) => [resource, minor, minor >= since && (until === undefined || minor < until)] as const)))(
    "%s at 1.%i: %s",
    (resource, minor, expected) => {
      expect(known.some((k) => id(k) === resource), `${resource} is a known kind`).toBe(true);
      expect(existsAt(minor).has(resource)).toBe(expected);
    },
  );

  it("every known kind that the table does not name exists at every emulated release", () => {
    const named = new Set(LIFECYCLE.map(([r]) => r));
    const unnamed = known.map(id).filter((r) => !named.has(r));
    expect(unnamed.length).toBeGreaterThan(40);
    for (const minor of [32, 33, 34, 35]) for (const r of unnamed) expect(existsAt(minor).has(r), `${r} at 1.${minor}`).toBe(true);
  });
});

describe("defaults at release 1.35", () => {
  const served = (gates: string[], entries: string[]) =>
    new Set(applyRuntimeConfig(candidateKinds(builtinKinds(profile), (g) => gates.includes(g), at(35)), entries, profile, known).map(id));

  it("keeps every alpha and late beta off, the GA versions on", () => {
    const s = served(["MutatingAdmissionPolicy"], []);
    expect(s.has(res("networking", "v1", "ipaddresses"))).toBe(true);
    expect(s.has(res("storage", "v1", "volumeattributesclasses"))).toBe(true);
    for (const r of known.map(id).filter((x) => /\/v\d+(alpha|beta)\d+\//.test(x))) expect(s.has(r), r).toBe(false);
  });

  it("api/beta and api/alpha turn them on; MutatingAdmissionPolicy also needs its gate", () => {
    const on = served(["MutatingAdmissionPolicy"], ["api/beta", "api/alpha"]);
    for (const r of [res("networking", "v1beta1", "servicecidrs"), res("storage", "v1beta1", "volumeattributesclasses"), res("admissionregistration", "v1alpha1", "mutatingadmissionpolicies")]) expect(on.has(r), r).toBe(true);
    expect(on.has(res("storage", "v1alpha1", "volumeattributesclasses"))).toBe(false); // removed in 1.35
    const noGate = served([], ["api/beta", "api/alpha"]);
    expect(noGate.has(res("networking", "v1beta1", "ipaddresses"))).toBe(true);
    expect([...noGate].some((r) => r.includes("mutatingadmissionpolic"))).toBe(false);
  });
});
