/**
 * Keeps the bootstrap APF objects (bootstrap.ts) in the store, in every replica,
 * as the platform's configuration producer does:
 *  - a missing object is created (a replica that loses the race gets 409 and
 *    moves on);
 *  - a mandatory object's spec is always put back (the `exempt` level keeps its
 *    `spec.exempt`, which admins may tune) and its annotation set to "true";
 *  - a suggested object's spec is put back when its
 *    `<annotations.apfAutoupdateSpec>` annotation says "true"; without a valid
 *    annotation, only while the object was never changed (generation 1). The
 *    annotation is then written with the decision ("false" for an object a user
 *    changed), as the platform records it.
 * It runs at start (awaited), after every change of a bootstrap object's name
 * (coalesced), and every `intervalMs` (the platform: one minute).
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { sameSpec } from "../../../shared/api/groups/flowcontrol-v1-rules.ts";
import { PRIORITY_LEVEL_EXEMPT } from "../../../shared/api/groups/flowcontrol-v1-mandatory.ts";
import type { Registry } from "../registry/registry.ts";
import type { JsonObject } from "../storage/object.ts";
import { bootstrapObjects, type BootstrapObject } from "./bootstrap.ts";
import type { InformerConfigSource } from "./config-source.ts";

export const DEFAULT_ENSURE_INTERVAL_MS = 60_000;

type Meta = { name?: string; generation?: number; annotations?: Record<string, string> };
const metaOf = (o: JsonObject): Meta => (o.metadata ?? {}) as Meta;

/** Whether the spec of a suggested object is kept up to date (the platform's rule). */
export function autoUpdatesSpec(o: JsonObject, annotation: string): boolean {
  const value = metaOf(o).annotations?.[annotation];
  const parsed = parseBool(value);
  if (parsed !== undefined) return parsed;
  return metaOf(o).generation === 1;
}

/** Go's strconv.ParseBool. */
function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) return false;
  return undefined;
}

/** The spec the object should have: the bootstrap one (the exempt level keeps its own `spec.exempt`). */
function wantedSpec(b: BootstrapObject, current: JsonObject): JsonObject {
  const spec = structuredClone(b.spec);
  const have = (current.spec ?? {}) as JsonObject;
  if (b.kind === "PriorityLevelConfiguration" && b.name === PRIORITY_LEVEL_EXEMPT && have.exempt !== undefined) spec.exempt = structuredClone(have.exempt);
  return spec;
}

/** The object with its spec and annotation put right, or undefined when nothing needs writing. */
export function revised(b: BootstrapObject, current: JsonObject, annotation: string): JsonObject | undefined {
  const autoUpdate = b.mandatory || autoUpdatesSpec(current, annotation);
  const wantAnnotation = autoUpdate ? "true" : "false";
  const annotations = metaOf(current).annotations ?? {};
  const annotationRight = parseBool(annotations[annotation]) === autoUpdate;
  const spec = autoUpdate ? wantedSpec(b, current) : current.spec;
  const specRight = !autoUpdate || sameSpec(current.spec, spec);
  if (annotationRight && specRight) return undefined;
  return { ...current, metadata: { ...(current.metadata as JsonObject), annotations: { ...annotations, [annotation]: wantAnnotation } }, spec };
}

export class BootstrapEnsurer {
  private readonly objects: BootstrapObject[];
  private readonly names: ReadonlySet<string>;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly profile: PlatformProfile,
    private readonly source: InformerConfigSource,
    private readonly registries: { flowSchemas: Registry; priorityLevels: Registry },
    private readonly log?: LogFn,
    private readonly intervalMs = DEFAULT_ENSURE_INTERVAL_MS,
  ) {
    this.objects = bootstrapObjects(profile);
    this.names = new Set(this.objects.map((o) => `${o.kind}/${o.name}`));
  }

  /** One pass, awaited; then passes after changes of bootstrap objects and on the interval. */
  async start(): Promise<void> {
    await this.ensureNow();
    this.source.onObjectChange((kind, ev) => {
      if (ev.type === "SYNC" || this.names.has(`${kind}/${metaOf(ev.object).name ?? ""}`)) this.schedule();
    });
    this.timer = setInterval(() => this.schedule(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  /** Coalesces requests: one pass at a time, one more after it when asked meanwhile. */
  private schedule(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.ensureNow().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    });
  }

  /** Priority levels first, then FlowSchemas (so schemas are not seen dangling); the objects of one kind together. */
  private async ensureNow(): Promise<void> {
    for (const kind of ["PriorityLevelConfiguration", "FlowSchema"] as const) {
      if (this.stopped) return;
      await Promise.all(this.objects.filter((b) => b.kind === kind).map((b) => this.ensureLogged(b)));
    }
  }

  private async ensureLogged(b: BootstrapObject): Promise<void> {
    try {
      await this.ensureOne(b);
    } catch (err) {
      // Another replica wrote first (409 AlreadyExists/Conflict) or the object went away: the next pass sees the result.
      if (!isStatusError(err, "AlreadyExists") && !isStatusError(err, "Conflict") && !isStatusError(err, "NotFound")) {
        this.log?.("warn", "APF bootstrap object not ensured", { kind: b.kind, name: b.name, error: String(err) });
      }
    }
  }

  private async ensureOne(b: BootstrapObject): Promise<void> {
    const registry = b.kind === "FlowSchema" ? this.registries.flowSchemas : this.registries.priorityLevels;
    const annotation = this.profile.annotations.apfAutoupdateSpec;
    const current = this.source.stored(b.kind).get(b.name);
    if (!current) {
      const apiVersion = this.profile.apiVersion("flowcontrol", "v1");
      await registry.create({ apiVersion, kind: b.kind, metadata: { name: b.name, annotations: { [annotation]: "true" } }, spec: structuredClone(b.spec) }, { dryRun: false });
      return;
    }
    if (!revised(b, current, annotation)) return;
    await registry.update(undefined, b.name, (latest) => (latest ? (revised(b, latest, annotation) ?? latest) : current), { dryRun: false });
  }
}
