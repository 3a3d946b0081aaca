/**
 * The pure core of the ServiceCIDR controller: which ServiceCIDRs an event concerns and
 * what a sync of one ServiceCIDR must do, from the cached ServiceCIDRs and IPAddresses
 * and the clock. No I/O; controller.ts carries the steps out.
 *
 * The platform's rules:
 * - a live ServiceCIDR gets the protection finalizer and `Ready=True` (no reason,
 *   message "<display name> Service CIDR is ready");
 * - a deleted one may lose its finalizer when every CIDR of it lies inside another
 *   ServiceCIDR (a "parent", same or wider prefix), or when no IPAddress lies in it
 *   alone; otherwise it is marked `Ready=False`, reason `Terminating`;
 * - the finalizer goes only once the deletion is `gracePeriodMs` old (10 s on the
 *   platform), so that every allocator has seen the deletion before the range is gone;
 * - an address "lies in" a prefix when the prefix contains it and it is neither the
 *   network address nor, for IPv4, the broadcast address (those are never allocated);
 * - a condition is rewritten only when its status, reason or message differ.
 */
import { parseAddress, parseCidrText, type IPFamily, type ParsedAddress, type ParsedCidr } from "../../../shared/api/groups/ip-text.ts";

export const READY = "Ready";
export const REASON_TERMINATING = "Terminating";
export const TERMINATING_MESSAGE = "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR";

/** What the core needs of a cached ServiceCIDR. */
export interface CidrView {
  name: string;
  cidrs: ParsedCidr[];
  /** `metadata.deletionTimestamp` in ms since the epoch; undefined while live. */
  deletedAt?: number;
  finalizers: readonly string[];
  conditions: readonly ConditionView[];
}

export interface ConditionView {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** The condition a sync wants on the object. */
export interface WantedCondition {
  type: typeof READY;
  status: "True" | "False";
  reason: string;
  message: string;
}

export type SyncStep =
  | { kind: "addFinalizer" }
  | { kind: "removeFinalizer" }
  | { kind: "setCondition"; condition: WantedCondition }
  /** Sync again after `ms` (the deletion grace period is not over). */
  | { kind: "requeueAfter"; ms: number };

/** An address as the core compares it. */
export type Address = Pick<ParsedAddress, "family" | "value">;

const width = (family: IPFamily): number => (family === "IPv4" ? 32 : 128);

function hostMask(c: ParsedCidr): bigint {
  return (1n << BigInt(width(c.family) - c.bits)) - 1n;
}

/** True when `ip` lies in `cidr`, leaving out the network and (IPv4) broadcast addresses. */
export function prefixHoldsAddress(cidr: ParsedCidr, ip: Address): boolean {
  if (cidr.family !== ip.family) return false;
  const mask = hostMask(cidr);
  if ((ip.value & ~mask) !== cidr.network) return false;
  if (ip.value === cidr.network) return false;
  return !(ip.family === "IPv4" && ip.value === (cidr.network | mask));
}

/** True when `outer` contains all of `inner` (same family, same or shorter prefix, same network bits). */
export function prefixContains(outer: ParsedCidr, inner: ParsedCidr): boolean {
  if (outer.family !== inner.family || outer.bits > inner.bits) return false;
  return (inner.network & ~hostMask(outer)) === outer.network;
}

/** True when the two prefixes share an address. */
export function prefixesOverlap(a: ParsedCidr, b: ParsedCidr): boolean {
  return prefixContains(a, b) || prefixContains(b, a);
}

/** The ServiceCIDRs holding `ip` (the ones an IPAddress event may block or unblock). */
export function cidrsHolding(all: readonly CidrView[], ip: Address): string[] {
  return all.filter((c) => c.cidrs.some((p) => prefixHoldsAddress(p, ip))).map((c) => c.name);
}

/** The ServiceCIDRs overlapping any CIDR of `target` (a new one may unblock their deletion). */
export function cidrsOverlapping(all: readonly CidrView[], target: Pick<CidrView, "cidrs">): string[] {
  return all.filter((c) => c.cidrs.some((p) => target.cidrs.some((t) => prefixesOverlap(p, t)))).map((c) => c.name);
}

/**
 * True when deleting `target` leaves no IPAddress outside every ServiceCIDR: each of its
 * CIDRs has a parent, or no address lies in `target` alone. As on the platform, every
 * cached ServiceCIDR counts, Terminating ones included.
 */
export function canRelease(target: CidrView, all: readonly CidrView[], ips: readonly Address[]): boolean {
  const others = all.filter((c) => c.name !== target.name);
  const hasParent = target.cidrs.every((t) => others.some((o) => o.cidrs.some((p) => prefixContains(p, t))));
  if (hasParent) return true;
  for (const ip of ips) {
    if (!target.cidrs.some((t) => prefixHoldsAddress(t, ip))) continue;
    if (!others.some((o) => o.cidrs.some((p) => prefixHoldsAddress(p, ip)))) return false;
  }
  return true;
}

function needsCondition(current: readonly ConditionView[], want: WantedCondition): boolean {
  const found = current.find((c) => c.type === want.type);
  return !found || found.status !== want.status || (found.reason ?? "") !== want.reason || (found.message ?? "") !== want.message;
}

export interface SyncInput {
  target: CidrView;
  all: readonly CidrView[];
  ips: readonly Address[];
  finalizer: string;
  /** "<display name> Service CIDR is ready". */
  readyMessage: string;
  now: number;
  gracePeriodMs: number;
}

/** The steps of one sync of `target`, in order. */
export function planSync(input: SyncInput): SyncStep[] {
  const { target, finalizer } = input;
  const hasFinalizer = target.finalizers.includes(finalizer);
  if (target.deletedAt !== undefined) {
    if (!canRelease(target, input.all, input.ips)) {
      const blocked: WantedCondition = { type: READY, status: "False", reason: REASON_TERMINATING, message: TERMINATING_MESSAGE };
      return needsCondition(target.conditions, blocked) ? [{ kind: "setCondition", condition: blocked }] : [];
    }
    const left = input.gracePeriodMs - (input.now - target.deletedAt);
    if (left > 0) return [{ kind: "requeueAfter", ms: left }];
    return hasFinalizer ? [{ kind: "removeFinalizer" }] : [];
  }
  const steps: SyncStep[] = hasFinalizer ? [] : [{ kind: "addFinalizer" }];
  const ready: WantedCondition = { type: READY, status: "True", reason: "", message: input.readyMessage };
  if (needsCondition(target.conditions, ready)) steps.push({ kind: "setCondition", condition: ready });
  return steps;
}

// ---------------------------------------------------------------- views of cached objects

type Loose = Record<string, unknown>;
const isLoose = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v);

/** The view of a cached ServiceCIDR object (unparsable CIDRs are left out). */
export function cidrView(obj: { metadata: { name?: string; deletionTimestamp?: string; finalizers?: string[] }; spec?: unknown; status?: unknown }): CidrView {
  const spec = isLoose(obj.spec) ? obj.spec : {};
  const texts = Array.isArray(spec.cidrs) ? spec.cidrs : [];
  const cidrs = texts.map((t) => parseCidrText(String(t))).filter((c): c is NonNullable<typeof c> => !!c);
  const status = isLoose(obj.status) ? obj.status : {};
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(isLoose).map((c) => ({
    type: String(c.type ?? ""),
    status: String(c.status ?? ""),
    reason: typeof c.reason === "string" ? c.reason : undefined,
    message: typeof c.message === "string" ? c.message : undefined,
  }));
  // An unreadable deletion time counts as long past: the object is Terminating all the same.
  const deletion = obj.metadata.deletionTimestamp ? Date.parse(obj.metadata.deletionTimestamp) || 0 : undefined;
  return { name: obj.metadata.name ?? "", cidrs, deletedAt: deletion, finalizers: obj.metadata.finalizers ?? [], conditions };
}

/** The address an IPAddress object is named by; undefined for a name that is no IP. */
export function addressOf(obj: { metadata: { name?: string } }): ParsedAddress | undefined {
  return parseAddress(obj.metadata.name ?? "");
}
