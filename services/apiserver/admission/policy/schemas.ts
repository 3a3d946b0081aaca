/**
 * Schemas for policy type checking: the kinds a policy's resourceRules name
 * (built-in kinds from their definitions, custom resources from their CRD's
 * OpenAPI schema read from the watch cache) and the paramKind's schema
 * (built-in kinds). A kind whose schema cannot be found is skipped, as the
 * platform does.
 */
import { builtinKinds } from "../../../../shared/api/groups/index.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { ObjectAccess } from "../interfaces.ts";
import { resourcesToCheck, type CheckedKind, type SchemaNode } from "./type-check.ts";

const MAX_DEPTH = 64;

/** A CRD's OpenAPI schema in the checker's form (extension names of the profile). */
function fromOpenApi(raw: unknown, profile: PlatformProfile, depth = 0): SchemaNode {
  if (!isObject(raw) || depth > MAX_DEPTH) return { preserveUnknownFields: true };
  const node: SchemaNode = {};
  if (typeof raw.type === "string") node.type = raw.type;
  if (raw[profile.ext.preserveUnknownFields] === true) node.preserveUnknownFields = true;
  if (raw[profile.ext.intOrString] === true) node.intOrString = true;
  if (isObject(raw.properties)) node.properties = Object.fromEntries(Object.entries(raw.properties).map(([k, v]) => [k, fromOpenApi(v, profile, depth + 1)]));
  if (isObject(raw.additionalProperties)) node.additionalProperties = fromOpenApi(raw.additionalProperties, profile, depth + 1);
  else if (raw.additionalProperties === true) node.additionalProperties = true;
  if (isObject(raw.items)) node.items = fromOpenApi(raw.items, profile, depth + 1);
  if (raw[profile.ext.embeddedResource] === true) {
    node.properties = { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: { type: "object", preserveUnknownFields: true }, ...(node.properties ?? {}) };
  }
  return node;
}

/** The custom resource's schema at `version`, from its CRD in the watch cache. */
async function crdSchema(profile: PlatformProfile, objects: ObjectAccess, group: string, version: string, resource: string): Promise<{ kind: string; schema: SchemaNode } | undefined> {
  const crd = await objects.get({ group: profile.group("apiextensions"), resource: "customresourcedefinitions", name: `${resource}.${group}` }, { cached: true });
  const spec = crd && isObject(crd.spec) ? crd.spec : undefined;
  if (!spec || !isObject(spec.names) || typeof spec.names.kind !== "string") return undefined;
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const v = versions.find((x) => x.name === version);
  const raw = v && isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
  if (!raw) return undefined;
  const schema = fromOpenApi(raw, profile);
  // apiVersion, kind and metadata are always there
  schema.properties = { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: builtinMetadata(profile) ?? { preserveUnknownFields: true }, ...(schema.properties ?? {}) };
  return { kind: spec.names.kind, schema };
}

function builtinMetadata(profile: PlatformProfile): SchemaNode | undefined {
  const cm = builtinKinds(profile).find((d) => d.group === "core" && d.kind === "ConfigMap");
  return cm?.schema.properties?.metadata;
}

/** The kinds to type-check a policy against (first 10 found). */
export async function kindsToCheck(profile: PlatformProfile, objects: ObjectAccess, spec: JsonObject): Promise<CheckedKind[]> {
  const builtins = builtinKinds(profile);
  const out: CheckedKind[] = [];
  const seen = new Set<string>();
  for (const { group, version, resource } of resourcesToCheck(spec)) {
    if (out.length >= 10) break;
    const def = builtins.find((d) => profile.group(d.group) === group && d.version === version && d.plural === resource);
    let found: CheckedKind | undefined;
    if (def) found = { group, version, kind: def.kind, schema: def.schema };
    else {
      const crd = await crdSchema(profile, objects, group, version, resource).catch(() => undefined);
      if (crd) found = { group, version, kind: crd.kind, schema: crd.schema };
    }
    const key = found && `${group}/${version}/${found.kind}`;
    if (found && key && !seen.has(key)) {
      seen.add(key);
      out.push(found);
    }
  }
  return out;
}

/** The paramKind's schema (built-in kinds), if the policy has one. */
export function paramsSchema(profile: PlatformProfile, spec: JsonObject): SchemaNode | undefined {
  const pk = isObject(spec.paramKind) ? spec.paramKind : undefined;
  if (!pk) return undefined;
  const def = builtinKinds(profile).find((d) => profile.apiVersion(d.group, d.version) === pk.apiVersion && d.kind === pk.kind);
  return def?.schema;
}
