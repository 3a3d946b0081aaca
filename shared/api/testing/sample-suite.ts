/**
 * A vitest suite over the sample manifests of one group version, shared by
 * the group test files: every kind has a sample of the profile's apiVersion;
 * it decodes with no unknown fields and no validation errors; defaulting
 * (schema defaults, then the kind defaulter) is idempotent, keeps the object
 * valid and fills the named defaults; every table cell renders; and mutated
 * copies fail with exactly the expected field paths.
 */
import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import { findUnknownFields, validate } from "../../schema/index.ts";
import type { FieldErrorType, KindDefinition } from "../../schema/types.ts";
import { admit, defaultObject, getAt, loadSample, mutate, paths, sampleFile } from "./sample-harness.ts";

type Obj = Record<string, unknown>;

export interface MutationCase {
  /** What the mutation breaks (test title). */
  name: string;
  kind: string;
  edit: (obj: Obj) => void;
  /** Expected unknown-field paths (default: none). */
  unknown?: string[];
  /** Expected error field paths, in report order (default: none). */
  errors?: string[];
  /** Expected error types, in the same order (optional). */
  types?: FieldErrorType[];
}

export interface SampleSuite {
  /** Samples directory (`apps-v1`). */
  dir: string;
  kinds: KindDefinition[];
  /** Per kind: dotted path (with `[i]`) → value expected after defaulting. */
  defaults: Record<string, Record<string, unknown>>;
  mutations: MutationCase[];
}

export function byKind(kinds: KindDefinition[], kind: string): KindDefinition {
  const d = kinds.find((k) => k.kind === kind);
  if (!d) throw new Error(`no kind ${kind}`);
  return d;
}

export function sampleOf(dir: string, kinds: KindDefinition[], kind: string): Obj {
  return loadSample(dir, sampleFile(byKind(kinds, kind)));
}

export function sampleSuite(s: SampleSuite): void {
  const profile = getProfile();
  describe(`${s.dir} samples`, () => {
    for (const def of s.kinds) {
      it(`${def.kind}: sample is valid, has no unknown fields, and defaulting is idempotent`, () => {
        const obj = sampleOf(s.dir, s.kinds, def.kind);
        expect(obj.apiVersion).toBe(profile.apiVersion(def.group, def.version));
        expect(obj.kind).toBe(def.kind);
        expect(validate(def.schema, obj)).toEqual([]);
        const { unknown, defaulted, errors } = admit(def, obj);
        expect(unknown).toEqual([]);
        expect(errors).toEqual([]);
        expect(findUnknownFields(def.schema, defaulted)).toEqual([]);
        expect(defaultObject(def, defaulted)).toEqual(defaulted);
        for (const [path, value] of Object.entries(s.defaults[def.kind] ?? {})) {
          expect(getAt(defaulted, path), path).toEqual(value);
        }
      });

      it(`${def.kind}: table cells render, and the Name column is left to the renderer`, () => {
        const { defaulted } = admit(def, sampleOf(s.dir, s.kinds, def.kind));
        for (const col of def.tableColumns ?? []) {
          expect(col.name).not.toBe("Name");
          expect(col.cell, col.name).toBeDefined();
          const v = col.cell?.(defaulted);
          expect(["string", "number", "boolean"], `${col.name} cell`).toContain(typeof v);
        }
      });
    }

    for (const m of s.mutations) {
      it(`${m.kind}: ${m.name}`, () => {
        const def = byKind(s.kinds, m.kind);
        const obj = mutate(sampleOf(s.dir, s.kinds, m.kind), m.edit);
        const { unknown, errors } = admit(def, obj);
        expect(unknown).toEqual(m.unknown ?? []);
        expect(paths(errors)).toEqual(m.errors ?? []);
        if (m.types) expect(errors.map((e) => e.type)).toEqual(m.types);
      });
    }
  });
}
