/**
 * OpenAPI documents derived from kind definitions: Swagger 2.0 for all kinds
 * (`/openapi/v2`) and OpenAPI 3.0 for one group version (`/openapi/v3/...`).
 *
 * Contract: pure and deterministic (definitions and paths sorted by name);
 * every named schema reached gets one definition keyed by
 * `profile.definitionName(...)`; each kind's definition carries the profile's
 * group-version-kind extension (`[{group, version, kind}]`, group "" for core);
 * all extension names come from `profile.ext`.
 */
import type { GroupKey, PlatformProfile } from "../platform/index.ts";
import { kindPaths, type JsonObject, type KindRefs, type OperationSpec, type ParamSpec, type PathSpec } from "./openapi-paths.ts";
import { convert, define, refTo, type ConvertContext } from "./openapi-schema.ts";
import type { KindDefinition, Schema } from "./types.ts";

export interface OpenAPIOptions {
  /** Shared schemas the operations refer to; minimal object schemas stand in for absent ones. */
  common?: { listMeta?: Schema; status?: Schema; deleteOptions?: Schema; scale?: Schema };
  /** `info.version` (default `unversioned`). */
  version?: string;
}

/** Swagger 2.0 document for all kinds. */
export function openapiV2(kinds: KindDefinition[], profile: PlatformProfile, opts: OpenAPIOptions = {}): JsonObject {
  const ctx: ConvertContext = { profile, v3: false, defs: new Map() };
  const paths = collectPaths(kinds, ctx, opts);
  return {
    swagger: "2.0",
    info: { title: profile.openapiTitle, version: opts.version ?? "unversioned" },
    paths: Object.fromEntries(paths.map((p) => [p.path, renderPathV2(p, profile)])),
    definitions: sortedDefs(ctx),
    securityDefinitions: { BearerToken: { type: "apiKey", name: "authorization", in: "header", description: "Bearer Token authentication" } },
    security: [{ BearerToken: [] }],
  };
}

/** OpenAPI 3.0 document for the kinds of one group version. */
export function openapiV3(kinds: KindDefinition[], profile: PlatformProfile, groupKey: GroupKey, version: string, opts: OpenAPIOptions = {}): JsonObject {
  const ctx: ConvertContext = { profile, v3: true, defs: new Map() };
  const selected = kinds.filter((k) => k.group === groupKey && k.version === version);
  const paths = collectPaths(selected, ctx, opts);
  return {
    openapi: "3.0.0",
    info: { title: profile.openapiTitle, version: opts.version ?? "unversioned" },
    paths: Object.fromEntries(paths.map((p) => [p.path, renderPathV3(p, profile)])),
    components: {
      schemas: sortedDefs(ctx),
      securitySchemes: { BearerToken: { type: "apiKey", name: "authorization", in: "header", description: "Bearer Token authentication" } },
    },
    security: [{ BearerToken: [] }],
  };
}

function sortedDefs(ctx: ConvertContext): JsonObject {
  return Object.fromEntries([...ctx.defs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A ref to a shared schema: its own definition if named, else one under `fallbackName`. */
function sharedRef(schema: Schema | undefined, fallbackName: string, ctx: ConvertContext): JsonObject {
  if (schema?.definition) return convert(schema, ctx);
  return refTo(define(fallbackName, schema ?? { type: "object" }, ctx), ctx.v3);
}

function collectPaths(kinds: KindDefinition[], ctx: ConvertContext, opts: OpenAPIOptions): PathSpec[] {
  const { profile } = ctx;
  const x = profile.ext;
  const meta = (name: string) => profile.definitionName("meta", "v1", name);
  const common = opts.common ?? {};
  const paths: PathSpec[] = [];
  for (const kind of kinds) {
    const gvk = (k: string) => [{ group: profile.group(kind.group), version: kind.version, kind: k }];
    const { definition: _ignored, ...body } = kind.schema;
    const objectName = define(profile.definitionName(kind.group, kind.version, kind.kind), body, ctx, { [x.groupVersionKind]: gvk(kind.kind) });
    const object = refTo(objectName, ctx.v3);
    const listMeta = sharedRef(common.listMeta, meta("ListMeta"), ctx);
    const listBody: Schema = {
      type: "object",
      description: `${kind.kind}List is a list of ${kind.kind} objects.`,
      properties: { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: {}, items: { type: "array", items: {} } },
      required: ["items"],
    };
    const listName = profile.definitionName(kind.group, kind.version, `${kind.kind}List`);
    const listDef = define(listName, listBody, ctx, { [x.groupVersionKind]: gvk(`${kind.kind}List`) });
    const listObj = ctx.defs.get(listDef) as { properties: JsonObject };
    listObj.properties.metadata = listMeta;
    listObj.properties.items = { type: "array", items: object };
    const refs: KindRefs = {
      object,
      list: refTo(listName, ctx.v3),
      status: sharedRef(common.status, meta("Status"), ctx),
      deleteOptions: sharedRef(common.deleteOptions, meta("DeleteOptions"), ctx),
    };
    if (kind.subresources?.includes("scale")) refs.scale = sharedRef(common.scale, profile.definitionName("autoscaling", "v1", "Scale"), ctx);
    paths.push(...kindPaths(kind, profile, refs));
  }
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function opExtensions(op: OperationSpec, profile: PlatformProfile): JsonObject {
  return { [profile.ext.action]: op.action, [profile.ext.groupVersionKind]: op.gvk };
}

function paramV2(p: ParamSpec): JsonObject {
  return { name: p.name, in: p.in, type: p.type, description: p.description, uniqueItems: true, ...(p.required ? { required: true } : {}) };
}

function renderPathV2(p: PathSpec, profile: PlatformProfile): JsonObject {
  const item: JsonObject = { parameters: p.params.map(paramV2) };
  for (const op of p.operations) {
    const parameters: JsonObject[] = [];
    if (op.body) parameters.push({ name: "body", in: "body", required: op.body.required, schema: op.body.schema });
    parameters.push(...op.params.map(paramV2));
    item[op.method] = {
      description: op.description,
      operationId: op.operationId,
      tags: [op.tag],
      ...(op.consumes.length ? { consumes: op.consumes } : {}),
      produces: op.produces,
      schemes: ["https"],
      parameters,
      responses: Object.fromEntries(op.responses.map((r) => [r.code, r.schema ? { description: r.description, schema: r.schema } : { description: r.description }])),
      ...opExtensions(op, profile),
    };
  }
  return item;
}

function paramV3(p: ParamSpec): JsonObject {
  return { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true }, ...(p.required ? { required: true } : {}) };
}

function renderPathV3(p: PathSpec, profile: PlatformProfile): JsonObject {
  const item: JsonObject = { parameters: p.params.map(paramV3) };
  for (const op of p.operations) {
    const body = op.body;
    const consumes = op.consumes.length ? op.consumes : ["*/*"];
    item[op.method] = {
      description: op.description,
      operationId: op.operationId,
      tags: [op.tag],
      parameters: op.params.map(paramV3),
      ...(body ? { requestBody: { content: Object.fromEntries(consumes.map((m) => [m, { schema: body.schema }])), required: body.required } } : {}),
      responses: Object.fromEntries(
        op.responses.map((r) => {
          const schema = r.schema;
          return [r.code, schema ? { description: r.description, content: Object.fromEntries(op.produces.map((m) => [m, { schema }])) } : { description: r.description }];
        }),
      ),
      ...opExtensions(op, profile),
    };
  }
  return item;
}
