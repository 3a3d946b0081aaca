/**
 * Scenario tests written as data, in the style of structured-merge-diff's
 * merge tests: a list of operations (apply or update, by manager, optionally
 * forced or on a subresource) run against one built-in kind, then the
 * expected object and managed fields, or the expected conflicts of an apply.
 *
 * Managed fields are expected either as printed paths per entry
 * (`"kubectl Apply": [".spec.replicas"]`, entries named `<manager> <operation>`
 * plus ` <subresource>` when set, all of them listed) or as exact FieldsV1.
 * Operation i runs at 2024-01-01T00:00:<i>Z unless it says otherwise.
 */
import { expect } from "vitest";
import { deployment } from "../../../../shared/api/groups/apps-v1.ts";
import { configMapKind, serviceKind } from "../../../../shared/api/groups/core-v1.ts";
import { StatusError } from "../../../../shared/api/status.ts";
import { ApplyConflictError } from "../conflict.ts";
import { fromFieldsV1, pathString } from "../fieldpath.ts";
import type { FieldsV1 } from "../fields-v1.ts";
import type { ManagedFieldsEntry } from "../managed-fields.ts";
import { applyPatch, recordUpdate, type KindContext, type Obj } from "../manager.ts";
import type { FieldSet } from "../fieldpath.ts";

export type KindName = "Deployment" | "ConfigMap" | "Service";

export const KINDS: Record<KindName, KindContext> = {
  Deployment: { schema: deployment, apiVersion: "apps/v1", kind: "Deployment" },
  ConfigMap: { schema: configMapKind.schema, apiVersion: "v1", kind: "ConfigMap" },
  Service: { schema: serviceKind.schema, apiVersion: "v1", kind: "Service" },
};

interface OpBase {
  subresource?: string;
  /** RFC 3339 time of the operation. */
  at?: string;
}

export interface ApplyOp extends OpBase {
  apply: string;
  object: Obj;
  force?: boolean;
  /** Expected conflicts as `<manager as printed>: <field>` (the apply fails). */
  conflicts?: string[];
  /** Expected failure message (any StatusError). */
  error?: string;
}

export interface UpdateOp extends OpBase {
  update: string;
  /** A JSON merge patch on the current object (a non-apply write)... */
  merge?: Obj;
  /** ...or the whole new object (PUT). */
  object?: Obj;
}

export type Op = ApplyOp | UpdateOp;

export interface Scenario {
  name: string;
  kind: KindName;
  /** The stored object before the first operation (undefined: it does not exist). */
  live?: Obj;
  /** Reset fields of the endpoint. */
  resetFields?: FieldSet;
  maxUpdateManagers?: number;
  ops: Op[];
  /** The final object, without managedFields. */
  object?: Obj;
  /** The final entries: `<manager> <operation>[ <subresource>]` → printed paths. */
  managed?: Record<string, string[]>;
  /** The final entries' exact FieldsV1. */
  fieldsV1?: Record<string, FieldsV1>;
  /** The final entries in order, as `<manager> <operation> <apiVersion> <time>`. */
  entries?: string[];
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Obj) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function timeOf(op: Op, i: number): Date {
  return new Date(op.at ?? `2024-01-01T00:00:${String(i).padStart(2, "0")}Z`);
}

export function entryName(e: ManagedFieldsEntry): string {
  return [e.manager, e.operation, e.subresource].filter(Boolean).join(" ");
}

export function managedFieldsOf(o: Obj | undefined): ManagedFieldsEntry[] {
  const meta = o?.metadata as Obj | undefined;
  return (meta?.managedFields as ManagedFieldsEntry[] | undefined) ?? [];
}

export function withoutManaged(o: Obj): Obj {
  const copy = structuredClone(o);
  const meta = copy.metadata as Obj | undefined;
  if (meta) delete meta.managedFields;
  return copy;
}

/** Runs a scenario and checks its expectations; returns the final object. */
export function runScenario(sc: Scenario): Obj | undefined {
  let live = sc.live ? structuredClone(sc.live) : undefined;
  sc.ops.forEach((op, i) => {
    const kind: KindContext = { ...KINDS[sc.kind], subresource: op.subresource, resetFields: sc.resetFields, maxUpdateManagers: sc.maxUpdateManagers };
    const now = timeOf(op, i);
    if ("apply" in op) {
      const run = () => applyPatch({ kind, live, patch: op.object, manager: op.apply, force: op.force ?? false, now });
      if (op.conflicts) {
        let err: unknown;
        try {
          run();
        } catch (e) {
          err = e;
        }
        expect(err, `op ${i}: expected conflicts`).toBeInstanceOf(ApplyConflictError);
        const causes = (err as ApplyConflictError).causes.map((c) => `${c.message.replace(/^conflict with /, "")}: ${c.field}`);
        expect(causes, `op ${i}: conflicts`).toEqual(op.conflicts);
        return;
      }
      if (op.error) {
        expect(run, `op ${i}: expected error`).toThrow(StatusError);
        expect(run).toThrow(op.error);
        return;
      }
      live = run();
    } else {
      const base = live ?? {};
      const next = op.object ? structuredClone(op.object) : (mergePatch(base, op.merge ?? {}) as Obj);
      live = recordUpdate({ kind, live, object: next, manager: op.update, now });
    }
  });
  if (sc.object) expect(live && withoutManaged(live)).toEqual(sc.object);
  const entries = managedFieldsOf(live);
  if (sc.managed) {
    const got: Record<string, string[]> = {};
    for (const e of entries) got[entryName(e)] = fromFieldsV1(e.fieldsV1).paths().map(pathString).sort();
    const want: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(sc.managed)) want[k] = [...v].sort();
    expect(got).toEqual(want);
  }
  if (sc.fieldsV1) {
    for (const [name, fields] of Object.entries(sc.fieldsV1)) {
      const e = entries.find((x) => entryName(x) === name);
      expect(JSON.stringify(e?.fieldsV1), name).toBe(JSON.stringify(fields));
    }
  }
  if (sc.entries) expect(entries.map((e) => `${e.manager} ${e.operation} ${e.apiVersion} ${e.time ?? "-"}`)).toEqual(sc.entries);
  return live;
}
