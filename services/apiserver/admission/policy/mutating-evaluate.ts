/**
 * Evaluation of one compiled MutatingAdmissionPolicy for one request and one
 * parameter object: match conditions (any false: no change; an error: the
 * failure policy), variables, then each mutation in order on the object as the
 * previous one left it. An ApplyConfiguration result is merged into the object
 * as server-side apply merges (the kind's schema: list-maps by key, atomic
 * lists replaced; without a schema maps merge and lists are replaced); a
 * JSONPatch result is applied as a JSON patch. A mutation that fails is
 * skipped and its error recorded, and the next one runs (the platform's
 * order); the caller's failure policy decides about the errors. Never throws
 * for CEL or patch problems.
 */
import { celValue, type CelValue } from "../../../../shared/cel/index.ts";
import { applyJsonPatchBounded } from "../../../../shared/patch/json-patch.ts";
import type { Schema } from "../../../../shared/schema/types.ts";
import { mergeObjects } from "../../fieldmanager/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { CompiledMutatingPolicy } from "./mutating-compile.ts";

export interface MutationInput {
  object: JsonObject;
  oldObject: JsonObject | undefined;
  request: Record<string, unknown>;
  params: JsonObject | undefined;
  namespaceObject: JsonObject | undefined;
  authorizer: unknown;
}

export interface MutationResult {
  object: JsonObject;
  changed: boolean;
  errors: string[];
}

type Program = CompiledMutatingPolicy["mutations"][number]["program"];

function run(program: Program, activation: Record<string, unknown>): { value?: unknown; error?: string } {
  try {
    return { value: program.evaluate(activation).value };
  } catch (err) {
    return { error: `expression '${program.source}' resulted in error: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Applies the policy's mutations; `schema` is the object's kind schema, if known. */
export async function mutate(policy: CompiledMutatingPolicy, input: MutationInput, schema: Schema | undefined): Promise<MutationResult> {
  const variables: Record<string, unknown> = {};
  // The inputs are converted to CEL values once; the object again after each change.
  const base = {
    oldObject: celValue(input.oldObject ?? null),
    request: celValue(input.request),
    params: celValue(input.params ?? null),
    namespaceObject: celValue(input.namespaceObject ?? null),
    variables,
    authorizer: input.authorizer,
  };
  let object = input.object;
  let converted = { json: object, cel: celValue(object) };
  const current = (): CelValue => {
    if (converted.json !== object) converted = { json: object, cel: celValue(object) };
    return converted.cel;
  };
  for (const c of policy.matchConditions) {
    const r = run(c.program, { ...base, object: current() });
    if (r.error !== undefined) return { object, changed: false, errors: [r.error] };
    if (r.value !== true) return { object, changed: false, errors: [] };
  }
  for (const v of policy.variables) {
    const r = run(v.program, { ...base, object: current() });
    if (r.error === undefined) variables[v.name] = r.value;
  }
  let changed = false;
  const errors: string[] = [];
  for (const m of policy.mutations) {
    const r = run(m.program, { ...base, object: current() });
    if (r.error !== undefined) {
      errors.push(r.error);
      continue;
    }
    let next: unknown;
    if (m.patchType === "ApplyConfiguration") {
      if (!isObject(r.value)) {
        errors.push(`expression '${m.program.source}' must evaluate to an Object{...}`);
        continue;
      }
      next = mergeObjects(schema, object, r.value);
    } else {
      if (!Array.isArray(r.value)) {
        errors.push(`expression '${m.program.source}' must evaluate to a list of JSONPatch{...}`);
        continue;
      }
      try {
        next = await applyJsonPatchBounded(object, r.value);
      } catch (err) {
        errors.push(`JSON Patch: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
    }
    if (!isObject(next)) {
      errors.push("the mutation did not produce an object");
      continue;
    }
    if (JSON.stringify(next) !== JSON.stringify(object)) changed = true;
    object = next;
  }
  return { object, changed, errors };
}
