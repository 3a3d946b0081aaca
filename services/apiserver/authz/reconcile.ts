/**
 * Reconciliation of the default policy, run at every start: creates missing
 * default ClusterRoles and ClusterRoleBindings, adds back missing rules,
 * aggregation selectors, labels, annotations and subjects, and recreates a
 * binding whose roleRef changed. Objects annotated
 * `<annotations.rbacAutoupdate>: "false"` are left alone. Never removes anything
 * a user added. Replicas may run it concurrently: conflicts are retried.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { Catalog } from "../registry/catalog.ts";
import type { Registry } from "../registry/registry.ts";
import type { JsonObject } from "../storage/object.ts";
import { defaultClusterRoleBindings, defaultClusterRoles } from "./default-policy.ts";
import { covers } from "./rbac/escalation.ts";
import { rulesOf, type AggregationRule, type Subject } from "./rbac/types.ts";

export interface RbacRegistries {
  clusterRoles: Registry;
  clusterRoleBindings: Registry;
}

export function rbacRegistries(catalog: Catalog, profile: PlatformProfile): RbacRegistries {
  const group = profile.group("rbac");
  const get = (plural: string) => {
    const served = catalog.lookup(group, "v1", plural);
    if (!served) throw new Error(`${plural}.${group} is not served`);
    return served.registry;
  };
  return { clusterRoles: get("clusterroles"), clusterRoleBindings: get("clusterrolebindings") };
}

export interface ReconcileResult {
  created: string[];
  updated: string[];
  /** Names skipped because autoupdate is off. */
  skipped: string[];
}

type Meta = { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };

function metaOf(obj: JsonObject): Meta {
  return (obj.metadata ?? {}) as Meta;
}

/** Adds the missing keys of `expected` to `existing`; true when something changed. */
function mergeMap(target: Meta, field: "labels" | "annotations", expected: Record<string, string> | undefined): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(expected ?? {})) {
    const m = (target[field] ??= {});
    if (!(k in m)) {
      m[k] = v;
      changed = true;
    }
  }
  return changed;
}

function autoupdateOff(obj: JsonObject, profile: PlatformProfile): boolean {
  return metaOf(obj).annotations?.[profile.annotations.rbacAutoupdate] === "false";
}

async function getOrUndefined(registry: Registry, name: string): Promise<JsonObject | undefined> {
  try {
    return await registry.get(undefined, name);
  } catch (err) {
    if (isStatusError(err, "NotFound")) return undefined;
    throw err;
  }
}

/** Runs `fn` again on write conflicts and create races (another replica reconciling). */
async function retrying<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt < 5 && (isStatusError(err, "Conflict") || isStatusError(err, "AlreadyExists") || isStatusError(err, "NotFound"))) continue;
      throw err;
    }
  }
}

function reconcileRole(existing: JsonObject, expected: JsonObject): JsonObject | undefined {
  const next = structuredClone(existing);
  let changed = false;
  const m = metaOf(next);
  const em = metaOf(expected);
  changed = mergeMap(m, "labels", em.labels) || changed;
  changed = mergeMap(m, "annotations", em.annotations) || changed;
  const expAgg = expected.aggregationRule as AggregationRule | undefined;
  if (expAgg) {
    const agg = (next.aggregationRule ??= { clusterRoleSelectors: [] }) as AggregationRule;
    const selectors = (agg.clusterRoleSelectors ??= []);
    for (const sel of expAgg.clusterRoleSelectors ?? []) {
      if (!selectors.some((s) => JSON.stringify(s) === JSON.stringify(sel))) {
        selectors.push(structuredClone(sel));
        changed = true;
      }
    }
  } else {
    const { uncovered } = covers(rulesOf(next), rulesOf(expected));
    if (uncovered.length > 0) {
      next.rules = [...(Array.isArray(next.rules) ? next.rules : []), ...uncovered];
      changed = true;
    }
  }
  return changed ? next : undefined;
}

function sameSubject(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && a.name === b.name && (a.namespace ?? "") === (b.namespace ?? "");
}

function reconcileBinding(existing: JsonObject, expected: JsonObject): JsonObject | undefined {
  const next = structuredClone(existing);
  let changed = false;
  const m = metaOf(next);
  const em = metaOf(expected);
  changed = mergeMap(m, "labels", em.labels) || changed;
  changed = mergeMap(m, "annotations", em.annotations) || changed;
  const subjects = (Array.isArray(next.subjects) ? next.subjects : []) as Subject[];
  for (const s of (expected.subjects ?? []) as Subject[]) {
    if (!subjects.some((x) => sameSubject(x, s))) {
      subjects.push(structuredClone(s));
      changed = true;
    }
  }
  next.subjects = subjects;
  return changed ? next : undefined;
}

/** Makes the stored default policy at least what this version ships. */
export async function reconcile(registries: RbacRegistries, profile: PlatformProfile): Promise<ReconcileResult> {
  const result: ReconcileResult = { created: [], updated: [], skipped: [] };
  const write = { dryRun: false };

  for (const role of defaultClusterRoles(profile)) {
    const expected = role as unknown as JsonObject;
    const name = role.metadata.name;
    await retrying(async () => {
      const existing = await getOrUndefined(registries.clusterRoles, name);
      if (!existing) {
        await registries.clusterRoles.create(structuredClone(expected), write);
        result.created.push(`clusterrole/${name}`);
        return;
      }
      if (autoupdateOff(existing, profile)) {
        result.skipped.push(`clusterrole/${name}`);
        return;
      }
      const next = reconcileRole(existing, expected);
      if (!next) return;
      await registries.clusterRoles.update(undefined, name, () => next, write);
      result.updated.push(`clusterrole/${name}`);
    });
  }

  for (const b of defaultClusterRoleBindings(profile)) {
    const expected = b as unknown as JsonObject;
    const name = b.metadata.name;
    await retrying(async () => {
      const existing = await getOrUndefined(registries.clusterRoleBindings, name);
      if (!existing) {
        await registries.clusterRoleBindings.create(structuredClone(expected), write);
        result.created.push(`clusterrolebinding/${name}`);
        return;
      }
      if (autoupdateOff(existing, profile)) {
        result.skipped.push(`clusterrolebinding/${name}`);
        return;
      }
      if (JSON.stringify(existing.roleRef) !== JSON.stringify(expected.roleRef)) {
        // roleRef is immutable: replace the binding, keeping its subjects.
        const replacement = structuredClone(expected);
        const merged = reconcileBinding({ ...replacement, subjects: existing.subjects ?? [] }, expected) ?? { ...replacement, subjects: existing.subjects ?? [] };
        delete (merged.metadata as Record<string, unknown>).resourceVersion;
        await registries.clusterRoleBindings.storage.delete(registries.clusterRoleBindings.key(undefined, name));
        await registries.clusterRoleBindings.create(merged, write);
        result.updated.push(`clusterrolebinding/${name}`);
        return;
      }
      const next = reconcileBinding(existing, expected);
      if (!next) return;
      await registries.clusterRoleBindings.update(undefined, name, () => next, write);
      result.updated.push(`clusterrolebinding/${name}`);
    });
  }
  return result;
}
