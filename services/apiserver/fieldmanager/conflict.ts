/**
 * The 409 of server-side apply: one cause per conflicting field and manager,
 * and the platform's aggregate message:
 *
 *   Apply failed with 1 conflict: conflict with "mgr" using apps/v1: .spec.replicas
 *   Apply failed with 2 conflicts: conflicts with "a":\n- .spec.x\nconflicts with "b" using v1:\n- .data.k
 *
 * On the wire a cause is `{reason: "FieldManagerConflict", message: "conflict
 * with \"mgr\" using apps/v1", field: ".spec.replicas"}` (the cause type is
 * serialized as `reason`).
 */
import { applyConflict, StatusError } from "../../../shared/api/status.ts";
import { printManager } from "./managed-fields.ts";
import { compareStrings, pathString } from "./path-element.ts";
import type { Conflict } from "./updater.ts";

export interface ConflictCause {
  readonly type: "FieldManagerConflict";
  readonly message: string;
  readonly field: string;
  /** Name of the manager that owns the field. */
  readonly manager: string;
}

export class ApplyConflictError extends StatusError {
  readonly causes: readonly ConflictCause[];

  constructor(conflicts: readonly Conflict[]) {
    const causes: ConflictCause[] = conflicts.map((c) => ({
      type: "FieldManagerConflict",
      message: `conflict with ${printManager(c.manager)}`,
      field: pathString(c.path),
      manager: managerName(c.manager),
    }));
    super(applyConflict(causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })), conflictMessage(conflicts)).status);
    this.name = "ApplyConflictError";
    this.causes = causes;
  }
}

function managerName(id: string): string {
  try {
    const v: unknown = JSON.parse(id);
    if (typeof v === "object" && v !== null && "manager" in v && typeof v.manager === "string") return v.manager;
  } catch {
    // a bare name
  }
  return id;
}

/** The aggregate message; conflicts are grouped by manager in identifier order. */
export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].manager)}: ${pathString(conflicts[0].path)}`;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(pathString(c.path));
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort(compareStrings)) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m)!) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}
