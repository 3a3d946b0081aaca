/**
 * Objects from `-f`: files, directories (their .yaml, .yml and .json files, sorted) or
 * `-` (standard input); every YAML document of a file, with `List` kinds expanded into
 * their items. Empty documents are skipped. A document that is not an object with
 * apiVersion and kind is an error naming the file.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { ApiObject } from "../../shared/client/object-client.ts";

export interface Manifest {
  source: string;
  object: ApiObject;
}

export class ManifestError extends Error {}

function filesOf(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ManifestError(`the path "${path}" does not exist`);
  }
  if (!st.isDirectory()) return [path];
  return readdirSync(path)
    .filter((n) => /\.(ya?ml|json)$/.test(n))
    .sort()
    .map((n) => join(path, n));
}

/** Every document of a text, in order (null for empty documents). */
export function parseDocuments(text: string, source: string): unknown[] {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  return list.map((d) => {
    if (d.errors.length > 0) throw new ManifestError(`error parsing ${source}: ${d.errors[0].message.split("\n")[0]}`);
    return d.toJS({ maxAliasCount: 100 }) as unknown;
  });
}

export function objectsOf(text: string, source: string): Manifest[] {
  const out: Manifest[] = [];
  const add = (doc: unknown) => {
    if (doc === null || doc === undefined) return;
    if (typeof doc !== "object" || Array.isArray(doc)) throw new ManifestError(`error parsing ${source}: a document is not an object`);
    const o = doc as Record<string, unknown>;
    if (typeof o.kind === "string" && o.kind.endsWith("List") && Array.isArray(o.items)) {
      for (const item of o.items) add(item);
      return;
    }
    if (typeof o.apiVersion !== "string" || !o.apiVersion) throw new ManifestError(`error validating data from ${source}: apiVersion not set`);
    if (typeof o.kind !== "string" || !o.kind) throw new ManifestError(`error validating data from ${source}: kind not set`);
    o.metadata ??= {};
    out.push({ source, object: o as ApiObject });
  };
  for (const doc of parseDocuments(text, source)) add(doc);
  return out;
}

export async function readManifests(paths: readonly string[], stdin: () => Promise<string>): Promise<Manifest[]> {
  if (paths.length === 0) throw new ManifestError("must specify one of -f and -k");
  const out: Manifest[] = [];
  for (const p of paths) {
    if (p === "-") {
      out.push(...objectsOf(await stdin(), "STDIN"));
      continue;
    }
    for (const f of filesOf(p)) out.push(...objectsOf(readFileSync(f, "utf8"), f));
  }
  return out;
}
