/**
 * The allocation repair loop of a replica (the platform's API server runs its ipallocator
 * and portallocator repair loops itself): every interval (default 3 minutes, the
 * platform's) it reads the Services, the IPAddress records and the node port records from
 * the watch cache (the Services by a consistent read, the records at the same revision),
 * asks `planRepair` (allocation-repair.ts) what to do, writes and
 * releases records through the storage (compare-and-swap on the record's
 * resourceVersion, so replicas that repair at once never undo each other's allocations:
 * a losing write is skipped) and records Warning Events on the Service or IPAddress.
 * A record still in its grace period (default 60 s, the platform's) brings the next pass
 * forward to its end. A failed pass is logged and retried at the next one.
 */
import { formatCidr } from "../../../shared/api/groups/ip-text.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { StorageError, type ObjectStorage } from "../storage/interface.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";
import type { Catalog } from "./catalog.ts";
import { planRepair, type IPRecordView, type ParentRefView, type PortRecordView, type RepairAction, type RepairEvent, type ServiceView } from "./allocation-repair.ts";
import { allocatorLabelState, ipAddressLabels } from "./ip-address-labels.ts";
import { allocationRecord, IP_RECORD_PREFIX, NODE_PORT_RECORD_PREFIX, type ServiceNetwork } from "./service-allocation.ts";
import { listServiceCidrs } from "./service-cidrs.ts";
import { inRange, parseCidr, parseIP } from "./service-ranges.ts";
import { newUid, timestamp } from "./system-meta.ts";

export const DEFAULT_REPAIR_INTERVAL_MS = 3 * 60 * 1000;
export const DEFAULT_LEAK_GRACE_MS = 60 * 1000;

export interface AllocationRepairOptions {
  catalog: Catalog;
  profile: PlatformProfile;
  net: ServiceNetwork;
  intervalMs?: number;
  graceMs?: number;
  /** Names the replica in the Events it records (reportingInstance). */
  instance?: string;
  now?: () => number;
  log?: (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
}

export interface AllocationRepair {
  /** One pass now (also what the timer runs). */
  runOnce(): Promise<void>;
  stop(): void;
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function parentRefOf(obj: JsonObject): ParentRefView | undefined {
  const ref = isObject(obj.spec) && isObject(obj.spec.parentRef) ? obj.spec.parentRef : undefined;
  return ref && { group: str(ref.group), resource: str(ref.resource), namespace: str(ref.namespace), name: str(ref.name) };
}

function createdMs(obj: JsonObject): number {
  const t = Date.parse(str(meta(obj).creationTimestamp));
  return Number.isNaN(t) ? 0 : t;
}

function serviceView(obj: JsonObject): ServiceView {
  const m = meta(obj);
  const spec = isObject(obj.spec) ? obj.spec : {};
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : typeof spec.clusterIP === "string" ? [spec.clusterIP] : [];
  const ports = (Array.isArray(spec.ports) ? spec.ports : []).map((p) => (isObject(p) ? p.nodePort : undefined));
  const nodePorts = [...ports, spec.healthCheckNodePort].filter((p): p is number => typeof p === "number" && p > 0);
  return { namespace: m.namespace ?? "", name: m.name ?? "", uid: m.uid, clusterIPs: ips.filter((ip): ip is string => typeof ip === "string"), nodePorts: [...new Set(nodePorts)] };
}

export function startAllocationRepair(opts: AllocationRepairOptions): AllocationRepair {
  const now = opts.now ?? Date.now;
  const intervalMs = opts.intervalMs ?? DEFAULT_REPAIR_INTERVAL_MS;
  const graceMs = opts.graceMs ?? DEFAULT_LEAK_GRACE_MS;
  const { catalog, profile } = opts;
  const labels = ipAddressLabels(profile);
  const recordApiVersion = profile.apiVersion("networking", "v1");
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;

  const services = () => catalog.lookup(profile.group("core"), "v1", "services")?.registry;

  const ipRecordView = (obj: JsonObject): IPRecordView => {
    const ip = meta(obj).name ?? "";
    const labelMap = isObject(meta(obj).labels) ? (meta(obj).labels as Record<string, unknown>) : {};
    return { ip, parentRef: parentRefOf(obj), createdMs: createdMs(obj), resourceVersion: meta(obj).resourceVersion ?? "", ...allocatorLabelState(profile, labelMap, parseIP(ip)?.family) };
  };
  const portRecordView = (obj: JsonObject): PortRecordView => ({ port: Number(meta(obj).name), parentRef: parentRefOf(obj), createdMs: createdMs(obj), resourceVersion: meta(obj).resourceVersion ?? "" });

  /** Address ranges of the live configuration: every stored ServiceCIDR, or the flag's while none is stored. */
  async function ipRanges(storage: ObjectStorage) {
    const stored = await listServiceCidrs(storage);
    return stored.length > 0 ? stored.flatMap((c) => c.cidrs.map((r) => parseCidr(formatCidr(r)))) : opts.net.cidrs;
  }

  /** A write another replica made first (or a record changed meanwhile) is not ours to insist on. */
  async function tolerant(step: () => Promise<unknown>): Promise<void> {
    try {
      await step();
    } catch (err) {
      if (err instanceof StorageError && ["KeyExists", "NotFound", "Conflict", "PreconditionFailed"].includes(err.code)) return;
      throw err;
    }
  }

  async function apply(storage: ObjectStorage, action: RepairAction): Promise<void> {
    switch (action.kind) {
      case "writeIP":
      case "writePort": {
        const ip = action.kind === "writeIP";
        const name = ip ? action.ip : String(action.port);
        const key = `${ip ? IP_RECORD_PREFIX : NODE_PORT_RECORD_PREFIX}${name}`;
        const record = allocationRecord(recordApiVersion, ip ? "IPAddress" : "ServiceNodePort", name, action.service, ip ? labels(action.family) : undefined);
        // A rewrite replaces the record in one compare-and-swap: the value is never free in between.
        if (action.replaces) await tolerant(() => storage.guaranteedUpdate(key, () => structuredClone(record), { preconditions: { resourceVersion: action.replaces } }));
        else await tolerant(() => storage.create(key, record));
        return;
      }
      case "releaseIP":
        return tolerant(() => storage.delete(`${IP_RECORD_PREFIX}${action.ip}`, { preconditions: { resourceVersion: action.resourceVersion } }));
      case "releasePort":
        return tolerant(() => storage.delete(`${NODE_PORT_RECORD_PREFIX}${action.port}`, { preconditions: { resourceVersion: action.resourceVersion } }));
    }
  }

  async function record(ev: RepairEvent): Promise<void> {
    const events = catalog.lookup(profile.group("core"), "v1", "events")?.registry;
    if (!events) return;
    const r = ev.regarding;
    const involvedObject =
      r.kind === "Service"
        ? { kind: "Service", apiVersion: "v1", namespace: r.service.namespace, name: r.service.name, uid: r.service.uid }
        : { kind: "IPAddress", apiVersion: recordApiVersion, name: r.name };
    const namespace = r.kind === "Service" ? r.service.namespace : "default";
    const at = timestamp(now());
    const body = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${involvedObject.name}.${newUid().replace(/-/g, "").slice(0, 16)}`, namespace },
      involvedObject,
      reason: ev.reason,
      message: ev.message,
      type: "Warning",
      action: ev.action,
      source: { component: ev.controller },
      reportingComponent: ev.controller,
      reportingInstance: opts.instance ?? "",
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
    };
    try {
      await events.create(body, { namespace, dryRun: false });
    } catch (err) {
      opts.log?.("warn", "allocation repair: event not recorded", { reason: ev.reason, error: String(err) });
    }
  }

  async function pass(): Promise<void> {
    const registry = services();
    if (!registry) return;
    const storage = registry.storage;
    // One consistent view: the Services as of now, the records at exactly the same revision.
    const svcs = await storage.list(registry.resource.keyPrefix);
    const atSameRevision = { resourceVersion: svcs.resourceVersion, resourceVersionMatch: "Exact" as const };
    const [ips, ports, ranges] = await Promise.all([storage.list(IP_RECORD_PREFIX, atSameRevision), storage.list(NODE_PORT_RECORD_PREFIX, atSameRevision), ipRanges(storage)]);
    const plan = planRepair({
      services: svcs.items.map(serviceView),
      ipRecords: ips.items.map(ipRecordView),
      portRecords: ports.items.map(portRecordView),
      ipInRange: (family, value) => ranges.some((r) => r.family === family && inRange(r, value)),
      nodePorts: opts.net.nodePorts,
      nodePortRangeText: opts.net.nodePortRangeText,
      nowMs: now(),
      graceMs,
    });
    for (const action of plan.actions) await apply(storage, action);
    for (const ev of plan.events) {
      opts.log?.("warn", `allocation repair: ${ev.message}`, { reason: ev.reason });
      await record(ev);
    }
    schedule(plan.recheckAtMs === undefined ? intervalMs : Math.min(intervalMs, Math.max(0, plan.recheckAtMs - now()) + 10));
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void runOnce(), delayMs);
    timer.unref();
  }

  function runOnce(): Promise<void> {
    running ??= pass()
      .catch((err: unknown) => {
        opts.log?.("warn", "allocation repair failed", { error: String(err) });
        schedule(intervalMs);
      })
      .finally(() => (running = undefined));
    return running;
  }

  schedule(0);
  return {
    runOnce,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
