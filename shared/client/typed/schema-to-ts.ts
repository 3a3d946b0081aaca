/**
 * Turns the typed schema of the built-in kinds (shared/schema/types.ts) into TypeScript
 * type text, so the typed clients' object types are derived from the schema the
 * apiserver validates with instead of being written twice. Pure: no I/O.
 *
 * Contract:
 *  - every named definition (`definition` on a node) becomes one exported type named
 *    `<Group><Version><Name>` (`AppsV1DeploymentSpec`) in the module of its group version;
 *    a use site refers to it by name (recursive schemas stay finite);
 *  - required properties are plain, the others optional; `nullable` adds `| null`;
 *  - enums become unions of literals, int-or-string `number | string`, maps `Record<string, T>`,
 *    arrays `T[]`; a node that keeps unknown fields or has no type is `unknown`-valued;
 *  - schema-extension keys (`x-…`, profile-dependent) become one `x-${string}` index
 *    signature, so the text is the same in every naming profile.
 */
import type { DefinitionRef, Schema } from "../../schema/types.ts";

/** `core`, `v1`, `Pod` → `CoreV1Pod`. */
export function definitionTypeName(ref: Pick<DefinitionRef, "group" | "version" | "name">): string {
  return `${pascal(ref.group)}${pascal(ref.version)}${ref.name.replace(/[^A-Za-z0-9_]/g, "")}`;
}

/** `group-version` module key of a definition (`core-v1`). */
export function moduleKey(ref: Pick<DefinitionRef, "group" | "version">): string {
  return `${ref.group}-${ref.version}`;
}

function pascal(word: string): string {
  return word
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join("");
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** Collects the named definitions a type text refers to, by module. */
export interface TypeEmitter {
  /** The type text of `schema` at a use site (a named definition is referred to by name). */
  typeOf(schema: Schema): string;
  /** The body of a named definition: an object literal type or another type. */
  bodyOf(schema: Schema): string;
}

/**
 * An emitter that reports each named definition it meets (`onDefinition`), so a caller can
 * emit it once and import it where it is used.
 */
export function typeEmitter(onDefinition: (ref: DefinitionRef, schema: Schema) => void): TypeEmitter {
  const inline = new Set<Schema>();

  function literal(value: string | number): string {
    return typeof value === "number" ? String(value) : JSON.stringify(value);
  }

  function objectBody(schema: Schema, indent: string): string {
    const props = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    const lines: string[] = [];
    let extensions = false;
    for (const [name, prop] of Object.entries(props)) {
      if (name.startsWith("x-")) {
        extensions = true;
        continue;
      }
      lines.push(`${indent}  ${propertyKey(name)}${required.has(name) ? "" : "?"}: ${typeAt(prop, `${indent}  `)};`);
    }
    if (extensions) lines.push(`${indent}  [extension: \`x-\${string}\`]: unknown;`);
    if (schema.preserveUnknownFields) lines.push(`${indent}  [field: string]: unknown;`);
    const body = lines.length > 0 ? `{\n${lines.join("\n")}\n${indent}}` : "Record<string, unknown>";
    if (schema.additionalProperties && lines.length > 0) return `${body} & Record<string, ${typeAt(schema.additionalProperties, indent)}>`;
    return body;
  }

  function untyped(schema: Schema, indent: string): string {
    if (schema.intOrString) return "number | string";
    if (schema.properties || schema.additionalProperties) return objectBody(schema, indent);
    return "unknown";
  }

  function structural(schema: Schema, indent: string): string {
    if (schema.enum && schema.enum.length > 0) return schema.enum.map(literal).join(" | ");
    if (schema.intOrString) return "number | string";
    switch (schema.type) {
      case "string":
        return "string";
      case "integer":
      case "number":
        return "number";
      case "boolean":
        return "boolean";
      case "array":
        return schema.items ? arrayOf(typeAt(schema.items, indent)) : "unknown[]";
      case "object":
        if (schema.properties && Object.keys(schema.properties).length > 0) return objectBody(schema, indent);
        if (schema.additionalProperties) return `Record<string, ${typeAt(schema.additionalProperties, indent)}>`;
        return "Record<string, unknown>";
      default:
        return untyped(schema, indent);
    }
  }

  function arrayOf(item: string): string {
    return /^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
  }

  function typeAt(schema: Schema, indent: string): string {
    let text: string;
    if (schema.definition) {
      onDefinition(schema.definition, schema);
      text = definitionTypeName(schema.definition);
    } else if (inline.has(schema)) {
      // A shared node met again inside itself without a name: stop the recursion.
      text = "unknown";
    } else {
      inline.add(schema);
      text = structural(schema, indent);
      inline.delete(schema);
    }
    return schema.nullable ? `${text} | null` : text;
  }

  return {
    typeOf: (schema) => typeAt(schema, ""),
    bodyOf: (schema) => {
      inline.add(schema);
      const text = structural(schema, "");
      inline.delete(schema);
      return text;
    },
  };
}
