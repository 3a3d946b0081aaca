/**
 * ClusterIP and NodePort allocation for Services, done in the store so that every
 * replica sees the same allocations: each allocated address is an IPAddress record
 * (`/registry/networking/ipaddresses/<ip>`, the 1.33+ layout, `spec.parentRef` naming the
 * Service) and each node port a record under `/registry/ranges/servicenodeports/<port>`.
 * Taking a value is creating its record (a create is a compare-and-swap on revision 0),
 * so two replicas can never hand out the same value. `AllocatingServiceStorage` wraps the
 * storage of the services resource: a create allocates after validation and admission
 * (as the platform's BeginCreate) and gives everything back when the write fails; an
 * update allocates what the new object needs and frees what it dropped; a delete frees
 * the Service's values. A dry run takes nothing: it checks requested values and shows
 * free ones without reserving them. Addresses come from the live ServiceCIDRs (the
 * default one holds `--service-cluster-ip-range`; the flag's ranges serve while the store
 * holds none); a requested address in none of them is refused. Ending a Terminating
 * ServiceCIDR once its addresses are freed is the ServiceCIDR controller's work.
 */
import { invalid, internalError, type StatusError } from "../../../shared/api/status.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { StorageError, type ObjectStorage, type TryUpdate, type UpdateOptions } from "../storage/interface.ts";
import { isObject, meta, type JsonObject } from "../storage/object.ts";
import { formatCidr } from "../../../shared/api/groups/ip-text.ts";
import { ForwardingStorage } from "./forwarding-storage.ts";
import { IP_RECORD_PREFIX, listServiceCidrs } from "./service-cidrs.ts";
import { candidates, DEFAULT_NODE_PORT_RANGE, DEFAULT_SERVICE_CIDRS, formatIP, inRange, parseCidr, parseIP, parsePortRange, type CidrRange, type IPFamily, type ValueRange } from "./service-ranges.ts";
import { newUid, timestamp } from "./system-meta.ts";
import type { IPAddressLabels } from "./ip-address-labels.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

export { IP_RECORD_PREFIX };
export const NODE_PORT_RECORD_PREFIX = "/registry/ranges/servicenodeports/";

export interface ServiceNetwork {
  /** One range per family, the first is the primary family. */
  cidrs: CidrRange[];
  nodePorts: ValueRange;
  nodePortRangeText: string;
}

/** `--service-cluster-ip-range` (up to two CIDRs of different families) and `--service-node-port-range`. */
export function serviceNetwork(cidrs: readonly string[] = DEFAULT_SERVICE_CIDRS, nodePortRange = DEFAULT_NODE_PORT_RANGE): ServiceNetwork {
  const ranges = (cidrs.length > 0 ? cidrs : DEFAULT_SERVICE_CIDRS).map(parseCidr);
  if (ranges.length > 2 || (ranges.length === 2 && ranges[0].family === ranges[1].family)) {
    throw new Error("--service-cluster-ip-range may name at most one IPv4 and one IPv6 CIDR");
  }
  const nodePorts = parsePortRange(nodePortRange);
  return { cidrs: ranges, nodePorts, nodePortRangeText: `${nodePorts.first}-${nodePorts.last}` };
}

export interface ParentRef {
  namespace: string;
  name: string;
}

function parentOf(svc: JsonObject): ParentRef {
  const m = meta(svc);
  return { namespace: m.namespace ?? "", name: m.name ?? "" };
}

function spec(svc: JsonObject): JsonObject {
  return isObject(svc.spec) ? svc.spec : (svc.spec = {});
}

function ports(svc: JsonObject): JsonObject[] {
  const list = spec(svc).ports;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

function serviceType(svc: JsonObject): string {
  return typeof spec(svc).type === "string" ? (spec(svc).type as string) : "ClusterIP";
}

function needsClusterIP(svc: JsonObject): boolean {
  return serviceType(svc) !== "ExternalName" && spec(svc).clusterIP !== "None";
}

function needsNodePorts(svc: JsonObject): boolean {
  const t = serviceType(svc);
  return t === "NodePort" || (t === "LoadBalancer" && spec(svc).allocateLoadBalancerNodePorts !== false);
}

function needsHealthCheckPort(svc: JsonObject): boolean {
  return serviceType(svc) === "LoadBalancer" && spec(svc).externalTrafficPolicy === "Local";
}

/** The values a stored Service holds: record keys of its addresses and ports. */
export function heldRecords(svc: JsonObject): string[] {
  const s = spec(svc);
  const keys: string[] = [];
  const ips = Array.isArray(s.clusterIPs) ? s.clusterIPs : typeof s.clusterIP === "string" ? [s.clusterIP] : [];
  for (const ip of ips) if (typeof ip === "string" && parseIP(ip)) keys.push(`${IP_RECORD_PREFIX}${ip}`);
  for (const p of ports(svc)) if (typeof p.nodePort === "number" && p.nodePort > 0) keys.push(`${NODE_PORT_RECORD_PREFIX}${p.nodePort}`);
  if (typeof s.healthCheckNodePort === "number" && s.healthCheckNodePort > 0) keys.push(`${NODE_PORT_RECORD_PREFIX}${s.healthCheckNodePort}`);
  return [...new Set(keys)];
}

const goStrings = (values: readonly string[]) => `[]string{${values.map((v) => JSON.stringify(v)).join(", ")}}`;

function fieldInvalid(field: string, shown: string, value: unknown, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, value, message: `Invalid value: ${shown}: ${detail}` };
}

function notInServiceCidrs(requested: readonly string[], ip: string): FieldError {
  return fieldInvalid("spec.clusterIPs", goStrings(requested), requested, `failed to allocate IP ${ip}: the provided network does not match the current range`);
}

/** The record of one allocated value (an IPAddress or a node port) held by `parent`. */
export function allocationRecord(apiVersion: string, kind: string, name: string, parent: ParentRef, labels?: Record<string, string>): JsonObject {
  const metadata: JsonObject = { name, uid: newUid(), creationTimestamp: timestamp(Date.now()), generation: 1 };
  if (labels) metadata.labels = labels;
  return { apiVersion, kind, metadata, spec: { parentRef: { group: "", resource: "services", namespace: parent.namespace, name: parent.name } } };
}

/** One allocation pass over a Service; records what it took so a failure can give it back. */
class AllocationPass {
  readonly taken: string[] = [];
  private readonly errors: FieldError[] = [];

  constructor(
    private readonly storage: ObjectStorage,
    private readonly net: ServiceNetwork,
    private readonly recordApiVersion: string,
    private readonly parent: ParentRef,
    private readonly dryRun: boolean,
    /** Record keys the Service already holds (kept without a new record). */
    private readonly held: ReadonlySet<string>,
    private readonly ipLabels?: IPAddressLabels,
  ) {}

  private record(kind: string, name: string): JsonObject {
    const family = kind === "IPAddress" ? parseIP(name)?.family : undefined;
    return allocationRecord(this.recordApiVersion, kind, name, this.parent, family && this.ipLabels?.(family));
  }

  /** The ranges addresses come from now: the live ServiceCIDRs, or the flag's while none is stored. */
  private async ipRanges(): Promise<CidrRange[]> {
    const stored = await listServiceCidrs(this.storage);
    if (stored.length === 0) return this.net.cidrs;
    const texts = stored.filter((c) => !c.closed).flatMap((c) => c.cidrs.map(formatCidr));
    // The flag's ranges (the default ServiceCIDR) first, then the others in name order.
    const primary = this.net.cidrs.map((c) => c.cidr).filter((c) => texts.includes(c));
    return [...new Set([...primary, ...texts])].map(parseCidr);
  }

  /**
   * Addresses taken by this pass still lie in a live ServiceCIDR: one deleted meanwhile
   * saw no address of ours when it was released, so it must not end up holding them.
   */
  private async stillCovered(ips: readonly string[], requested: readonly string[]): Promise<boolean> {
    const fresh = ips.filter((ip) => this.taken.includes(`${IP_RECORD_PREFIX}${ip}`));
    if (fresh.length === 0) return true;
    const live = await this.ipRanges();
    for (const ip of fresh) {
      const parsed = parseIP(ip);
      if (parsed && live.some((r) => r.family === parsed.family && inRange(r, parsed.value))) continue;
      if (!requested.includes(ip)) throw internalError("failed to allocate a serviceIP: range is full");
      this.errors.push(notInServiceCidrs(requested, ip));
      return false;
    }
    return true;
  }

  /** Takes `key` for the Service; false when another owner has it. */
  private async take(key: string, kind: string, name: string): Promise<boolean> {
    if (this.held.has(key) || this.taken.includes(key)) return true;
    if (this.dryRun) {
      try {
        await this.storage.get(key);
        return false;
      } catch (err) {
        if (err instanceof StorageError && err.code === "NotFound") return true;
        throw err;
      }
    }
    try {
      await this.storage.create(key, this.record(kind, name));
      this.taken.push(key);
      return true;
    } catch (err) {
      if (err instanceof StorageError && err.code === "KeyExists") return false;
      throw err;
    }
  }

  private async takeAny(range: ValueRange, keyOf: (v: bigint) => string, kind: string, nameOf: (v: bigint) => string): Promise<bigint | undefined> {
    const size = range.last - range.first + 1n;
    const start = BigInt(Math.floor(Math.random() * Number(size < 1n << 50n ? size : 1n << 50n)));
    for (const v of candidates(range, start)) {
      const key = keyOf(v);
      // A value this pass took for another field, or the old object holds, is not free for a new one.
      if (this.held.has(key) || this.taken.includes(key)) continue;
      if (await this.take(key, kind, nameOf(v))) return v;
    }
    return undefined;
  }

  /** Cluster IPs: requested ones checked and taken, missing ones allocated; sets clusterIP, clusterIPs, ipFamilies, ipFamilyPolicy. */
  async clusterIPs(svc: JsonObject): Promise<void> {
    const s = spec(svc);
    const requested = (Array.isArray(s.clusterIPs) ? s.clusterIPs : typeof s.clusterIP === "string" && s.clusterIP ? [s.clusterIP] : []).filter((v): v is string => typeof v === "string" && v !== "");
    const policy = typeof s.ipFamilyPolicy === "string" ? s.ipFamilyPolicy : "SingleStack";
    const ranges = await this.ipRanges();
    const primary = this.net.cidrs[0].family;
    // A family is configured by the flag or by a live ServiceCIDR; one whose ServiceCIDRs are all closed is full.
    const configured = new Set([...this.net.cidrs, ...ranges].map((r) => r.family));
    const dualStack = configured.size === 2;
    let families = (Array.isArray(s.ipFamilies) ? s.ipFamilies : []).filter((f): f is IPFamily => f === "IPv4" || f === "IPv6");
    if (families.length === 0) families = requested.map((ip) => parseIP(ip)?.family ?? primary);
    if (families.length === 0) families = [primary];
    if (policy !== "SingleStack" && families.length === 1 && dualStack) families.push(families[0] === "IPv4" ? "IPv6" : "IPv4");
    if (policy === "RequireDualStack" && !dualStack) {
      this.errors.push(fieldInvalid("spec.ipFamilyPolicy", JSON.stringify(policy), policy, "this cluster is not configured for dual-stack services"));
      return;
    }
    const ips: string[] = [];
    for (const [i, family] of families.entries()) {
      const familyRanges = ranges.filter((c) => c.family === family);
      if (!configured.has(family)) {
        this.errors.push(fieldInvalid(`spec.ipFamilies[${i}]`, JSON.stringify(family), family, "not configured on this cluster"));
        return;
      }
      const want = requested[i];
      if (want) {
        const ip = parseIP(want);
        if (!ip || ip.family !== family || !familyRanges.some((r) => inRange(r, ip.value))) {
          this.errors.push(notInServiceCidrs(requested, want));
          return;
        }
        if (!(await this.take(`${IP_RECORD_PREFIX}${want}`, "IPAddress", want))) {
          this.errors.push(fieldInvalid("spec.clusterIPs", goStrings(requested), requested, `failed to allocate IP ${want}: provided IP is already allocated`));
          return;
        }
        ips.push(want);
        continue;
      }
      let got: bigint | undefined;
      for (const range of familyRanges) {
        got ??= await this.takeAny(range, (v) => `${IP_RECORD_PREFIX}${formatIP(family, v)}`, "IPAddress", (v) => formatIP(family, v));
      }
      if (got === undefined) throw internalError(`failed to allocate a serviceIP: range is full`);
      ips.push(formatIP(family, got));
    }
    if (!(await this.stillCovered(ips, requested))) return;
    s.clusterIP = ips[0];
    s.clusterIPs = ips;
    s.ipFamilies = families;
    s.ipFamilyPolicy = policy;
  }

  /** A headless Service: `None`, with its families defaulted. */
  headless(svc: JsonObject): void {
    const s = spec(svc);
    s.clusterIP = "None";
    s.clusterIPs = ["None"];
    if (!Array.isArray(s.ipFamilies) || s.ipFamilies.length === 0) s.ipFamilies = [this.net.cidrs[0].family];
    if (typeof s.ipFamilyPolicy !== "string") s.ipFamilyPolicy = "SingleStack";
  }

  private async port(field: string, requested: unknown): Promise<number | undefined> {
    const range = this.net.nodePorts;
    const keyOf = (v: bigint) => `${NODE_PORT_RECORD_PREFIX}${v}`;
    if (typeof requested === "number" && requested > 0) {
      if (!inRange(range, BigInt(requested))) {
        this.errors.push(fieldInvalid(field, String(requested), requested, `provided port is not in the valid range. The range of valid ports is ${this.net.nodePortRangeText}`));
        return undefined;
      }
      if (!(await this.take(keyOf(BigInt(requested)), "ServiceNodePort", String(requested)))) {
        this.errors.push(fieldInvalid(field, String(requested), requested, "provided port is already allocated"));
        return undefined;
      }
      return requested;
    }
    const got = await this.takeAny(range, keyOf, "ServiceNodePort", String);
    if (got === undefined) throw internalError("failed to allocate a nodePort: range is full");
    return Number(got);
  }

  async nodePorts(svc: JsonObject): Promise<void> {
    for (const [i, p] of ports(svc).entries()) {
      const got = await this.port(`spec.ports[${i}].nodePort`, p.nodePort);
      if (got !== undefined) p.nodePort = got;
    }
  }

  async healthCheckPort(svc: JsonObject): Promise<void> {
    const s = spec(svc);
    const got = await this.port("spec.healthCheckNodePort", s.healthCheckNodePort);
    if (got !== undefined) s.healthCheckNodePort = got;
  }

  failure(svc: JsonObject): StatusError | undefined {
    return this.errors.length > 0 ? invalid("Service", meta(svc).name ?? "", this.errors) : undefined;
  }
}

/** The services storage with allocation; every other resource keeps the plain storage. */
export class AllocatingServiceStorage extends ForwardingStorage {
  constructor(
    inner: ObjectStorage,
    private readonly net: ServiceNetwork,
    private readonly recordApiVersion: string,
    private readonly ipLabels?: IPAddressLabels,
  ) {
    super(inner);
  }

  /** Allocates what `svc` needs (keeping what `old` held); returns the pass with what it took. */
  private async allocate(svc: JsonObject, old: JsonObject | undefined, dryRun: boolean): Promise<AllocationPass> {
    const held = new Set(old ? heldRecords(old) : []);
    const pass = new AllocationPass(this.inner, this.net, this.recordApiVersion, parentOf(svc), dryRun, held, this.ipLabels);
    try {
      if (spec(svc).clusterIP === "None") pass.headless(svc);
      else if (needsClusterIP(svc)) await pass.clusterIPs(svc);
      if (needsNodePorts(svc)) await pass.nodePorts(svc);
      if (needsHealthCheckPort(svc)) await pass.healthCheckPort(svc);
      const failed = pass.failure(svc);
      if (failed) throw failed;
      return pass;
    } catch (err) {
      await this.free(pass.taken, parentOf(svc));
      throw err;
    }
  }

  /** Deletes the records at `keys` that belong to `parent` (a record another Service took meanwhile stays). */
  private async free(keys: readonly string[], parent: ParentRef): Promise<void> {
    if (keys.length === 0) return;
    for (const key of keys) {
      try {
        const record = await this.inner.get(key);
        const ref = isObject(record.spec) && isObject(record.spec.parentRef) ? record.spec.parentRef : {};
        if (ref.namespace !== parent.namespace || ref.name !== parent.name) continue;
        await this.inner.delete(key, { preconditions: { resourceVersion: meta(record).resourceVersion } });
      } catch {
        // already gone, or changed meanwhile: nothing of ours to free
      }
    }
  }

  override async create(key: string, obj: JsonObject, options?: { dryRun?: boolean; ttlSeconds?: number }): Promise<JsonObject> {
    const svc = cloneValue(obj);
    const pass = await this.allocate(svc, undefined, !!options?.dryRun);
    try {
      return await this.inner.create(key, svc, options);
    } catch (err) {
      await this.free(pass.taken, parentOf(svc));
      throw err;
    }
  }

  override async guaranteedUpdate(key: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<JsonObject> {
    const dryRun = !!options?.dryRun;
    const passes: AllocationPass[] = [];
    let last: { old: JsonObject; pass: AllocationPass | undefined } | undefined;
    let parent: ParentRef | undefined;
    try {
      const result = await this.inner.guaranteedUpdate(
        key,
        async (current) => {
          const next = await tryUpdate(current);
          last = undefined;
          if (!current) return next;
          const attempt: { old: JsonObject; pass: AllocationPass | undefined } = { old: current, pass: undefined };
          last = attempt;
          if (!next) return next;
          const svc = cloneValue(next);
          parent = parentOf(svc);
          attempt.pass = await this.allocate(svc, current, dryRun);
          passes.push(attempt.pass);
          return svc;
        },
        options,
      );
      const owner = parent ?? parentOf(result);
      // Values taken by attempts that lost a race are given back.
      for (const p of passes) if (p !== last?.pass) await this.free(p.taken, owner);
      // Values the update dropped (a removed port, a type that needs no node port) are freed.
      if (last && !dryRun) {
        const kept = new Set(heldRecords(result));
        await this.free(heldRecords(last.old).filter((k) => !kept.has(k)), owner);
      }
      return result;
    } catch (err) {
      for (const p of passes) await this.free(p.taken, parent ?? { namespace: "", name: "" });
      throw err;
    }
  }

  override async delete(key: string, options?: Parameters<ObjectStorage["delete"]>[1]): Promise<JsonObject> {
    const deleted = await this.inner.delete(key, options);
    if (!options?.dryRun) await this.free(heldRecords(deleted), parentOf(deleted));
    return deleted;
  }
}
