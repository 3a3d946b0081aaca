/**
 * Round-trip properties of every built-in kind (issue 24), on objects generated from each
 * kind's schema (test/fuzz/schema-arbitraries.ts), managedFields included:
 * - protobuf: JSON → protobuf → JSON equals the kind's normalized form, and that form is
 *   a fixed point;
 * - CBOR: JSON → CBOR → JSON is the identity;
 * - versions: a kind served in several versions converts through its storage version and
 *   back without loss (HorizontalPodAutoscaler autoscaling/v1 and v2; Event in its
 *   events/v1 and core/v1 faces; the alpha and beta versions of release 1.35 that only
 *   rename their apiVersion).
 * `FUZZ_SEED` replays a run; `LONG=1` (npm run test:long) runs 40× as many cases.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { mutatingAdmissionPolicyVersions, preReleaseKinds } from "../../shared/api/groups/pre-release-kinds.ts";
import { decodeCbor, encodeCbor } from "../../shared/codec/cbor.ts";
import { decodeObject, encodeObject, normalizeForProtobuf } from "../../shared/codec/protobuf/index.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { conversionKey } from "../../services/apiserver/registry/conversion.ts";
import { toCoreEvent, toEventsV1Event } from "../../services/apiserver/registry/event-validation.ts";
import { kindConversions } from "../../services/apiserver/registry/kind-conversions.ts";
import { kindObject } from "./schema-arbitraries.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);
const RUNS = LONG ? 200 : 5;
const profile = getProfile("kubernetes");
const kinds = builtinKinds(profile);
const params = { seed: SEED, numRuns: RUNS };

/** The fields a value has: empty objects and lists left out, as the platform's omitempty encoding leaves them out. */
function present(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(present);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const p = present(x);
    if (typeof p === "object" && p !== null && Object.keys(p).length === 0) continue;
    out[k] = p;
  }
  return out;
}

/**
 * A conversion keeps what the object had when every field of the input is in the output
 * with its value (the output may add zero values of required fields, as the platform's
 * encoding does) and converting the output again changes nothing.
 */
function expectLossless(roundTrip: (o: Record<string, unknown>) => Record<string, unknown>, input: Record<string, unknown>): void {
  const out = roundTrip(structuredClone(input));
  expect(out).toMatchObject(present(input) as Record<string, unknown>);
  expect(roundTrip(structuredClone(out))).toEqual(out);
}

describe("protobuf round trip of every kind", () => {
  for (const def of kinds.filter((k) => k.protobuf)) {
    it(`${def.group}/${def.version} ${def.kind}`, () => {
      fc.assert(
        fc.property(kindObject(def, profile.apiVersion(def.group, def.version)), (obj) => {
          const back = decodeObject(def, encodeObject(def, obj, profile), { profile });
          expect(back).toEqual(normalizeForProtobuf(def, obj));
          expect(decodeObject(def, encodeObject(def, back, profile), { profile })).toEqual(back);
        }),
        params,
      );
    });
  }
});

describe("CBOR round trip of every kind", () => {
  it("JSON → CBOR → JSON is the identity", () => {
    for (const def of kinds) {
      fc.assert(
        fc.property(kindObject(def, profile.apiVersion(def.group, def.version)), (obj) => {
          expect(decodeCbor(encodeCbor(obj))).toEqual(obj);
        }),
        { ...params, numRuns: Math.max(2, Math.floor(RUNS / 4)) },
      );
    }
  });
});

describe("conversion between served versions", () => {
  const hpa = kindConversions(profile).get(conversionKey("autoscaling", "HorizontalPodAutoscaler"));
  const hpaDef = (version: string) => kinds.find((k) => k.group === "autoscaling" && k.kind === "HorizontalPodAutoscaler" && k.version === version);

  // Both versions default an HPA without a target to 80% CPU; the properties start from defaulted objects.
  const DEFAULT_CPU = { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } };
  const withSpec = (o: Record<string, unknown>) => ((o.spec ??= {}) as Record<string, unknown>);

  /** The target and current fields validation allows per metric source (others are dropped, as no valid object has them). */
  const ALLOWED: Record<string, readonly string[]> = {
    resource: ["averageValue", "averageUtilization"],
    containerResource: ["averageValue", "averageUtilization"],
    pods: ["averageValue"],
    object: ["value", "averageValue"],
    external: ["value", "averageValue"],
  };
  const TARGET_TYPE: Record<string, string> = { value: "Value", averageValue: "AverageValue", averageUtilization: "Utilization" };
  function metricsAsValidated(o: Record<string, unknown>): void {
    const lists = [(o.spec as { metrics?: unknown[] } | undefined)?.metrics, (o.status as { currentMetrics?: unknown[] } | undefined)?.currentMetrics];
    for (const list of lists) {
      for (const m of list ?? []) {
        for (const [member, allowed] of Object.entries(ALLOWED)) {
          const body = (m as Record<string, Record<string, Record<string, unknown>> | undefined>)[member];
          for (const part of [body?.target, body?.current]) {
            for (const field of ["value", "averageValue", "averageUtilization"]) if (part && !allowed.includes(field)) delete part[field];
          }
          // A target holds exactly one value, of the kind its type names.
          const target = body?.target;
          if (target) {
            const kept = allowed.find((f) => target[f] !== undefined) ?? allowed[0];
            for (const f of allowed) if (f !== kept) delete target[f];
            target[kept] ??= kept === "averageUtilization" ? 50 : "1";
            target.type = TARGET_TYPE[kept];
          }
        }
      }
    }
  }

  it("HorizontalPodAutoscaler: v2 → storage → v1 → storage → v2 keeps everything", () => {
    const def = hpaDef("v2");
    expect(hpa && def).toBeTruthy();
    if (!hpa || !def) return;
    fc.assert(
      fc.property(kindObject(def, profile.apiVersion("autoscaling", "v2")).map((o) => {
        const spec = withSpec(o);
        if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) spec.metrics = [DEFAULT_CPU];
        metricsAsValidated(o);
        // v2's currentReplicas is omitted when zero (omitempty), so a zero is no field to keep.
        const status = o.status as { currentReplicas?: number } | undefined;
        if (status?.currentReplicas === 0) delete status.currentReplicas;
        return o;
      }), (obj) => {
        const { v1, v2 } = hpa.versions;
        expectLossless((o) => v2.fromStorage(v1.toStorage(v1.fromStorage(v2.toStorage(o)))), v2.fromStorage(v2.toStorage(obj)));
      }),
      params,
    );
  });

  it("HorizontalPodAutoscaler: v1 → storage → v1 keeps everything v1 has", () => {
    const def = hpaDef("v1");
    if (!hpa || !def) throw new Error("autoscaling/v1 HorizontalPodAutoscaler is not served");
    fc.assert(
      fc.property(kindObject(def, profile.apiVersion("autoscaling", "v1")).map((o) => {
        withSpec(o).targetCPUUtilizationPercentage ??= 80;
        return o;
      }), (obj) => {
        const { v1 } = hpa.versions;
        expectLossless((o) => v1.fromStorage(v1.toStorage(o)), obj);
      }),
      params,
    );
  });

  it("Event: events/v1 → core/v1 → events/v1 and back keep every field", () => {
    const def = kinds.find((k) => k.group === "events" && k.kind === "Event");
    if (!def) throw new Error("events/v1 Event is not served");
    fc.assert(
      fc.property(kindObject(def, profile.apiVersion("events", "v1")), (obj) => {
        expect(toEventsV1Event(toCoreEvent(obj))).toEqual(obj);
        const core = toCoreEvent(obj);
        expect(toCoreEvent(toEventsV1Event(core))).toEqual(core);
      }),
      params,
    );
  });
});

describe("pre-release versions (release 1.35's alphas and betas of kinds served in another version)", () => {
  const preRelease = [...preReleaseKinds, ...mutatingAdmissionPolicyVersions.filter((k) => k.version !== "v1beta1")];
  const conversions = kindConversions(profile);

  for (const def of preRelease) {
    it(`${def.group}/${def.version} ${def.kind}: → storage → back is the identity, both ways, managedFields kept; protobuf round trip`, () => {
      const conversion = conversions.get(conversionKey(def.group, def.kind));
      const converter = conversion?.versions[def.version];
      if (!conversion || !converter) throw new Error(`no conversion for ${def.group}/${def.version} ${def.kind}`);
      const storageVersion = profile.apiVersion(def.group, conversion.storageVersion);
      fc.assert(
        fc.property(kindObject(def, profile.apiVersion(def.group, def.version)), (obj) => {
          const before = structuredClone(obj);
          const stored = converter.toStorage(obj);
          expect(obj).toEqual(before); // the input is not mutated
          expect(stored.apiVersion).toBe(storageVersion);
          expect(converter.fromStorage(stored)).toEqual(obj);
          expect(converter.toStorage(converter.fromStorage(stored))).toEqual(stored);
          if (def.protobuf) expect(decodeObject(def, encodeObject(def, obj, profile), { profile })).toEqual(normalizeForProtobuf(def, obj));
        }),
        params,
      );
    });
  }
});
