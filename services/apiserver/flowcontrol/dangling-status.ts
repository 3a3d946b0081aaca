/**
 * The `Dangling` condition of every FlowSchema, kept by each replica as the
 * platform's configuration consumer keeps it: True (reason NotFound) when the
 * priority level it names does not exist, False (reason Found) when it does,
 * with the platform's messages. Written through the status subresource only
 * when type, status, reason or message differ; replicas compute the same value,
 * so a write that loses a race (409) is simply retried on the next change.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { Registry } from "../registry/registry.ts";
import { timestamp } from "../registry/system-meta.ts";
import type { JsonObject } from "../storage/object.ts";
import type { InformerConfigSource } from "./config-source.ts";

export const DANGLING = "Dangling";

export interface DanglingCondition {
  type: typeof DANGLING;
  status: "True" | "False";
  reason: "NotFound" | "Found";
  message: string;
}

export function danglingCondition(priorityLevel: string, exists: boolean): DanglingCondition {
  return exists
    ? { type: DANGLING, status: "False", reason: "Found", message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(priorityLevel)} and it exists` }
    : { type: DANGLING, status: "True", reason: "NotFound", message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(priorityLevel)} but there is no such object` };
}

type Obj = Record<string, unknown>;
const conditionsOf = (o: JsonObject): Obj[] => {
  const c = (o.status as Obj | undefined)?.conditions;
  return Array.isArray(c) ? (c as Obj[]) : [];
};
const priorityLevelOf = (o: JsonObject): string => String(((o.spec as Obj | undefined)?.priorityLevelConfiguration as Obj | undefined)?.name ?? "");

/** The status with the condition set, or undefined when it is already so. */
export function withDangling(o: JsonObject, wanted: DanglingCondition, now: string): JsonObject | undefined {
  const conditions = conditionsOf(o);
  const have = conditions.find((c) => c.type === DANGLING);
  if (have && have.status === wanted.status && have.reason === wanted.reason && have.message === wanted.message) return undefined;
  const next = { ...wanted, lastTransitionTime: now };
  return { ...((o.status as Obj | undefined) ?? {}), conditions: have ? conditions.map((c) => (c === have ? next : c)) : [...conditions, next] };
}

export class DanglingStatusWriter {
  private readonly inFlight = new Set<string>();
  private stopped = false;

  constructor(
    private readonly source: InformerConfigSource,
    private readonly flowSchemas: Registry,
    private readonly log?: LogFn,
  ) {}

  start(): void {
    this.source.onObjectChange(() => this.checkAll());
    this.checkAll();
  }

  stop(): void {
    this.stopped = true;
  }

  private checkAll(): void {
    if (this.stopped) return;
    const levels = this.source.stored("PriorityLevelConfiguration");
    for (const [name, fs] of this.source.stored("FlowSchema")) {
      const wanted = danglingCondition(priorityLevelOf(fs), levels.has(priorityLevelOf(fs)));
      if (!withDangling(fs, wanted, "") || this.inFlight.has(name)) continue;
      this.inFlight.add(name);
      void this.write(name, wanted).finally(() => this.inFlight.delete(name));
    }
  }

  private async write(name: string, wanted: DanglingCondition): Promise<void> {
    try {
      await this.flowSchemas.update(
        undefined,
        name,
        (latest) => {
          // Gone meanwhile: the registry answers NotFound (FlowSchemas are not created by an update).
          if (!latest) return { metadata: { name } };
          const status = withDangling(latest, wanted, timestamp(Date.now()));
          return status ? { ...latest, status } : latest;
        },
        { subresource: "status", dryRun: false },
      );
    } catch (err) {
      if (!isStatusError(err, "Conflict") && !isStatusError(err, "NotFound")) {
        this.log?.("warn", "FlowSchema status not written", { name, error: String(err) });
      }
    }
  }
}
