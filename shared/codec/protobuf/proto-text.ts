/**
 * `.proto` text of the built-in kinds, generated from the same layouts the
 * codec uses (layout.ts), for publishing: one file per group version
 * (`api/<group>-<version>.proto`) plus the three apimachinery packages the
 * messages refer to (runtime, intstr, resource). proto2 syntax with `optional`
 * labels, as the platform's generated files. Package names come from the
 * naming profile (its OpenAPI definition prefixes with the domain put first).
 */
import type { PlatformProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { status as statusSchema } from "../../api/groups/meta-v1.ts";
import { kindLayout, listLayout, messageLayout, type FieldLayout, type MessageLayout, type PackageRef, type ValueType } from "./layout.ts";

type Support = "runtime" | "intstr" | "resource";

interface FileBuilder {
  file: string;
  pkg: string;
  imports: Set<string>;
  messages: Map<string, string>;
}

/** An OpenAPI definition prefix (`io.<domain>.api.core.v1`, reversed domain) as a proto package (`<domain>.api.core.v1`); dashes become underscores. */
function fromDefinitionPrefix(prefix: string): string {
  const parts = prefix.split(".");
  return [parts[1], parts[0], ...parts.slice(2)].join(".").replace(/-/g, "_");
}

export function protoPackageOf(pkg: PackageRef, profile: PlatformProfile): string {
  const def = profile.definitionName(pkg.group, pkg.version, "X");
  return fromDefinitionPrefix(def.slice(0, -2));
}

function supportPackage(s: Support, profile: PlatformProfile): string {
  const base = fromDefinitionPrefix(profile.openapiMetaPrefix).replace(/\.apis\.meta$/, "");
  return s === "runtime" ? `${base}.runtime` : s === "intstr" ? `${base}.util.intstr` : `${base}.api.resource`;
}

export const fileOf = (pkg: PackageRef): string => `api/${pkg.group}-${pkg.version}.proto`;
const supportFile = (s: Support): string => `api/apimachinery-${s}.proto`;

const SUPPORT_MESSAGES: Record<Support, string> = {
  runtime: [
    "// TypeMeta is the type of an object in an envelope.",
    "message TypeMeta {\n  optional string apiVersion = 1;\n  optional string kind = 2;\n}",
    "// Unknown is the protobuf envelope: the body after the 4-byte prefix 0x6b 0x38 0x73 0x00.",
    "message Unknown {\n  optional TypeMeta typeMeta = 1;\n  optional bytes raw = 2;\n  optional string contentEncoding = 3;\n  optional string contentType = 4;\n}",
    "// RawExtension holds an embedded value as JSON (or, in a watch event, the object's protobuf body).",
    "message RawExtension {\n  optional bytes raw = 1;\n}",
  ].join("\n\n"),
  intstr: "// IntOrString holds an int32 (type 0) or a string (type 1).\nmessage IntOrString {\n  optional int64 type = 1;\n  optional int32 intVal = 2;\n  optional string strVal = 3;\n}",
  resource: "// Quantity is a resource amount in its canonical string form (`500m`, `1Gi`).\nmessage Quantity {\n  optional string string = 1;\n}",
};

/** The text of every file, keyed by its path relative to the proto root (`api/core-v1.proto`). */
export function generateProtoFiles(kinds: readonly KindDefinition[], profile: PlatformProfile): Map<string, string> {
  const files = new Map<string, FileBuilder>();
  const fileFor = (pkg: PackageRef): FileBuilder => {
    const file = fileOf(pkg);
    let f = files.get(file);
    if (!f) {
      f = { file, pkg: protoPackageOf(pkg, profile), imports: new Set(), messages: new Map() };
      files.set(file, f);
    }
    return f;
  };
  const supports = new Set<Support>(["runtime"]);
  const done = new Set<MessageLayout>();
  const queue: MessageLayout[] = [];

  const ref = (from: FileBuilder, pkg: PackageRef, name: string): string => {
    const target = fileFor(pkg);
    if (target === from) return name;
    from.imports.add(target.file);
    return `.${target.pkg}.${name}`;
  };
  const supportRef = (from: FileBuilder, s: Support, name: string): string => {
    supports.add(s);
    from.imports.add(supportFile(s));
    return `.${supportPackage(s, profile)}.${name}`;
  };
  const metaPkg: PackageRef = { group: "meta", version: "v1" };

  const typeName = (from: FileBuilder, owner: MessageLayout, t: ValueType): string => {
    switch (t.kind) {
      case "scalar":
        switch (t.scalar) {
          case "time":
            return ref(from, metaPkg, "Time");
          case "fieldsV1":
            return ref(from, metaPkg, "FieldsV1");
          case "quantity":
            return supportRef(from, "resource", "Quantity");
          case "intOrString":
            return supportRef(from, "intstr", "IntOrString");
          case "json":
            return supportRef(from, "runtime", "RawExtension");
          default:
            return t.scalar;
        }
      case "message": {
        const l = t.layout();
        queue.push(l);
        return ref(from, l.pkg, l.name);
      }
      case "listWrapper": {
        const item = typeName(from, owner, t.item);
        if (!from.messages.has(t.message)) from.messages.set(t.message, `message ${t.message} {\n  repeated ${item} items = 1;\n}`);
        return t.message;
      }
      case "union": {
        const inner = t.inner();
        queue.push(inner);
        const target = fileFor(inner.pkg);
        const innerName = ref(target, inner.pkg, inner.name);
        if (!target.messages.has(t.message)) {
          const second = t.union === "schemaOrArray" ? `repeated ${innerName} jSONSchemas = 2;` : t.union === "schemaOrBool" ? `optional ${innerName} schema = 2;` : "repeated string property = 2;";
          const first = t.union === "schemaOrBool" ? "optional bool allows = 1;" : `optional ${innerName} schema = 1;`;
          target.messages.set(t.message, `message ${t.message} {\n  ${first}\n  ${second}\n}`);
        }
        return ref(from, inner.pkg, t.message);
      }
    }
  };

  const fieldLine = (from: FileBuilder, owner: MessageLayout, f: FieldLayout): string => {
    if (f.embed) {
      emit(f.embed);
      return `  optional ${ref(from, f.embed.pkg, f.embed.name)} ${f.protoName} = ${f.tag};`;
    }
    switch (f.type.shape) {
      case "single":
        return `  optional ${typeName(from, owner, f.type.value)} ${f.protoName} = ${f.tag};`;
      case "list":
        return `  repeated ${typeName(from, owner, f.type.item)} ${f.protoName} = ${f.tag};`;
      case "map":
        return `  map<string, ${typeName(from, owner, f.type.value)}> ${f.protoName} = ${f.tag};`;
    }
  };

  function emit(l: MessageLayout): void {
    if (done.has(l)) return;
    done.add(l);
    const f = fileFor(l.pkg);
    if (f.messages.has(l.name)) return;
    f.messages.set(l.name, ""); // reserve against recursion
    const lines = l.fields.map((x) => fieldLine(f, l, x));
    f.messages.set(l.name, `message ${l.name} {\n${lines.join("\n")}\n}`);
  }

  for (const def of kinds) {
    if (!def.protobuf) continue;
    emit(kindLayout(def));
    if (!def.virtual) emit(listLayout(def));
  }
  emit(messageLayout(statusSchema, "Status", metaPkg));
  while (queue.length > 0) {
    const l = queue.shift();
    if (l) emit(l);
  }
  const meta = fileFor(metaPkg);
  meta.messages.set("Time", "// Time is a timestamp with seconds resolution on the JSON side (RFC 3339); MicroTime uses the same message.\nmessage Time {\n  optional int64 seconds = 1;\n  optional int32 nanos = 2;\n}");
  meta.messages.set("FieldsV1", "// FieldsV1 holds a field set as JSON.\nmessage FieldsV1 {\n  optional bytes Raw = 1;\n}");
  meta.messages.set(
    "WatchEvent",
    `// WatchEvent is one event of a watch stream; object.raw holds the object's protobuf body (prefix and envelope).\nmessage WatchEvent {\n  optional string type = 1;\n  optional ${supportRef(meta, "runtime", "RawExtension")} object = 2;\n}`,
  );

  const out = new Map<string, string>();
  for (const s of [...supports].sort()) out.set(supportFile(s), render(supportFile(s), supportPackage(s, profile), new Set(), new Map([[s, SUPPORT_MESSAGES[s]]])));
  for (const f of [...files.values()].sort((a, b) => byString(a.file, b.file))) {
    f.imports.delete(f.file);
    out.set(f.file, render(f.file, f.pkg, f.imports, f.messages));
  }
  return new Map([...out.entries()].sort(([a], [b]) => byString(a, b)));
}

function render(file: string, pkg: string, imports: Set<string>, messages: Map<string, string>): string {
  const head = [
    "// Generated by shared/codec/protobuf/generate-proto.ts from the typed schema. Do not edit.",
    `// ${file}`,
    "",
    'syntax = "proto2";',
    "",
    `package ${pkg};`,
    "",
  ];
  const imp = [...imports].sort().map((i) => `import "${i}";`);
  const body = [...messages.entries()]
    .sort(([a], [b]) => byString(a, b))
    .map(([, text]) => text)
    .filter((t) => t !== "");
  return [...head, ...(imp.length > 0 ? [...imp, ""] : []), body.join("\n\n"), ""].join("\n");
}

function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
