import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../api/groups/index.ts";
import { SAMPLES_DIR, defaultObject } from "../../api/testing/sample-harness.ts";
import { decodeYamlStrict } from "../../schema/index.ts";
import { isObject } from "../../schema/values.ts";
import { getProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { decodeObject, encodeObject, kindLayout, normalizeForProtobuf, type MessageLayout } from "./index.ts";

const profile = getProfile();
const kinds = builtinKinds(profile);

interface Sample {
  file: string;
  def: KindDefinition;
  obj: Record<string, unknown>;
}

function samples(): Sample[] {
  const out: Sample[] = [];
  for (const dir of readdirSync(SAMPLES_DIR).sort()) {
    for (const file of readdirSync(join(SAMPLES_DIR, dir)).sort()) {
      if (!file.endsWith(".yaml")) continue;
      const docs = readFileSync(join(SAMPLES_DIR, dir, file), "utf8").split(/^---\s*$/m);
      docs.forEach((text, i) => {
        const obj = decodeYamlStrict(text).value;
        if (!isObject(obj)) return;
        const def = kinds.find((k) => profile.apiVersion(k.group, k.version) === obj.apiVersion && k.kind === obj.kind);
        if (def) out.push({ file: `${dir}/${file}${docs.length > 1 ? `#${i}` : ""}`, def, obj });
      });
    }
  }
  return out;
}

const all = samples();

describe("protobuf round trip of the sample manifests", () => {
  it("covers every kind with protobuf messages that has a sample", () => {
    const withSample = new Set(all.map((s) => s.def));
    const missing = kinds.filter((k) => k.protobuf && !withSample.has(k)).map((k) => k.kind);
    expect(all.length).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });

  for (const s of all.filter((x) => x.def.protobuf)) {
    it(`${s.file}: JSON → protobuf → JSON equals the normalized sample (as written and defaulted)`, () => {
      for (const obj of [s.obj, defaultObject(s.def, s.obj)]) {
        const bytes = encodeObject(s.def, obj, profile);
        expect(Array.from(bytes.subarray(0, 4))).toEqual([0x6b, 0x38, 0x73, 0x00]);
        const back = decodeObject(s.def, bytes, { profile });
        expect(back).toEqual(normalizeForProtobuf(s.def, obj));
        // The normalized form is a fixed point.
        expect(decodeObject(s.def, encodeObject(s.def, back, profile))).toEqual(back);
      }
    });
  }
});

describe("layouts of the built-in kinds", () => {
  it("place every schema property on the wire (a field number or an inlined struct)", () => {
    const unmapped: string[] = [];
    const seen = new Set<MessageLayout>();
    const walk = (l: MessageLayout, where: string): void => {
      if (seen.has(l)) return;
      seen.add(l);
      for (const u of l.unmapped) unmapped.push(`${where}.${u}`);
      for (const f of l.fields) {
        if (f.embed) walk(f.embed, where);
        else {
          const t = f.type.shape === "single" ? f.type.value : f.type.shape === "list" ? f.type.item : f.type.value;
          if (t.kind === "message") walk(t.layout(), `${where}.${f.name}`);
        }
      }
    };
    for (const def of kinds.filter((k) => k.protobuf)) walk(kindLayout(def), def.kind);
    expect(unmapped).toEqual([]);
  });

  it("use unique field numbers within each message", () => {
    const dupes: string[] = [];
    const check = (l: MessageLayout, seen: Set<MessageLayout>): void => {
      if (seen.has(l)) return;
      seen.add(l);
      const tags = l.fields.map((f) => f.tag);
      if (new Set(tags).size !== tags.length) dupes.push(l.name);
      for (const f of l.fields) {
        if (f.embed) check(f.embed, seen);
        else if (f.type.shape !== "map" && (f.type.shape === "single" ? f.type.value : f.type.item).kind === "message") {
          const t = f.type.shape === "single" ? f.type.value : f.type.item;
          if (t.kind === "message") check(t.layout(), seen);
        }
      }
    };
    const seen = new Set<MessageLayout>();
    for (const def of kinds.filter((k) => k.protobuf)) check(kindLayout(def), seen);
    expect(dupes).toEqual([]);
  });
});

