/** The ServiceCIDR controller's pure core as tables: address and prefix rules, which ServiceCIDRs an event concerns, release, and the steps of a sync. */
import { describe, expect, it } from "vitest";
import { parseAddress, parseCidrText } from "../../../shared/api/groups/ip-text.ts";
import { canRelease, cidrsHolding, cidrsOverlapping, cidrView, planSync, prefixContains, prefixHoldsAddress, REASON_TERMINATING, TERMINATING_MESSAGE, type CidrView, type ConditionView, type SyncStep } from "./decide.ts";

const FINALIZER = "networking.example.io/service-cidr-finalizer";
const READY_MESSAGE = "Example Service CIDR is ready";

function prefix(text: string) {
  const p = parseCidrText(text);
  if (!p) throw new Error(`bad CIDR ${text}`);
  return p;
}
function ip(text: string) {
  const a = parseAddress(text);
  if (!a) throw new Error(`bad address ${text}`);
  return a;
}
function view(name: string, cidrs: string[], extra: Partial<CidrView> = {}): CidrView {
  return { name, cidrs: cidrs.map(prefix), finalizers: [FINALIZER], conditions: [], ...extra };
}

describe("prefixHoldsAddress", () => {
  const rows: Array<[string, string, boolean]> = [
    ["10.0.0.0/24", "10.0.0.5", true],
    ["10.0.0.0/24", "10.0.0.0", false], // network address
    ["10.0.0.0/24", "10.0.0.255", false], // IPv4 broadcast
    ["10.0.0.0/24", "10.0.1.1", false],
    ["10.0.0.0/24", "fd00::5", false],
    ["fd00::/120", "fd00::ff", true], // no broadcast in IPv6
    ["fd00::/120", "fd00::", false],
    ["fd00::/120", "fd00::1:0", false],
    ["10.0.0.0/31", "10.0.0.1", false],
  ];
  it.each(rows)("%s holds %s: %s", (c, a, want) => expect(prefixHoldsAddress(prefix(c), ip(a))).toBe(want));
});

describe("prefixContains", () => {
  const rows: Array<[string, string, boolean]> = [
    ["10.0.0.0/16", "10.0.3.0/24", true],
    ["10.0.0.0/24", "10.0.0.0/24", true],
    ["10.0.3.0/24", "10.0.0.0/16", false],
    ["10.1.0.0/16", "10.0.3.0/24", false],
    ["fd00::/64", "fd00::/120", true],
    ["10.0.0.0/8", "fd00::/120", false],
  ];
  it.each(rows)("%s contains %s: %s", (outer, inner, want) => expect(prefixContains(prefix(outer), prefix(inner))).toBe(want));
});

describe("which ServiceCIDRs an event concerns", () => {
  const all = [view("wide", ["10.0.0.0/16"]), view("narrow", ["10.0.3.0/24"]), view("dual", ["10.9.0.0/24", "fd00::/120"]), view("apart", ["10.1.0.0/24"])];
  const holding: Array<[string, string[]]> = [
    ["10.0.3.7", ["wide", "narrow"]],
    ["10.0.4.7", ["wide"]],
    ["fd00::9", ["dual"]],
    ["10.0.3.0", ["wide"]], // the network address of narrow only
    ["192.168.0.1", []],
  ];
  it.each(holding)("an IPAddress %s queues %j", (a, want) => expect(cidrsHolding(all, ip(a))).toEqual(want));
  const overlapping: Array<[string[], string[]]> = [
    [["10.0.3.128/25"], ["wide", "narrow"]],
    [["10.0.0.0/8"], ["wide", "narrow", "dual", "apart"]],
    [["fd00::80/121"], ["dual"]],
    [["172.16.0.0/12"], []],
  ];
  it.each(overlapping)("a new ServiceCIDR %j queues %j", (cidrs, want) => expect(cidrsOverlapping(all, { cidrs: cidrs.map(prefix) })).toEqual(want));
});

describe("canRelease", () => {
  const doomed = view("doomed", ["10.0.3.0/24"], { deletedAt: 0 });
  const rows: Array<[string, CidrView[], string[], boolean]> = [
    ["no address", [doomed], [], true],
    ["an address only it holds", [doomed], ["10.0.3.7"], false],
    ["an address outside it", [doomed], ["10.0.4.7"], true],
    ["its network address only", [doomed], ["10.0.3.0"], true],
    ["a parent holds all of it", [doomed, view("wide", ["10.0.0.0/16"])], ["10.0.3.7"], true],
    ["a twin holds the same range", [doomed, view("twin", ["10.0.3.0/24"])], ["10.0.3.7"], true],
    ["a Terminating parent counts, as on the platform", [doomed, view("wide", ["10.0.0.0/16"], { deletedAt: 0 })], ["10.0.3.7"], true],
    ["a narrower one holds the address", [doomed, view("narrow", ["10.0.3.0/28"])], ["10.0.3.7"], true],
    ["a narrower one misses the address", [doomed, view("narrow", ["10.0.3.0/28"])], ["10.0.3.77"], false],
  ];
  it.each(rows)("%s → %s", (_label, all, ips, want) => expect(canRelease(doomed, all, ips.map(ip))).toBe(want));

  it("a dual-stack ServiceCIDR needs a parent for both families", () => {
    const dual = view("dual", ["10.0.3.0/24", "fd00::/120"], { deletedAt: 0 });
    expect(canRelease(dual, [dual, view("v4", ["10.0.0.0/16"])], [ip("fd00::5")])).toBe(false);
    expect(canRelease(dual, [dual, view("v4", ["10.0.0.0/16"]), view("v6", ["fd00::/64"])], [ip("fd00::5")])).toBe(true);
  });
});

describe("planSync", () => {
  const NOW = 1_000_000;
  const ready: ConditionView = { type: "Ready", status: "True", reason: "", message: READY_MESSAGE };
  const blocked: ConditionView = { type: "Ready", status: "False", reason: REASON_TERMINATING, message: TERMINATING_MESSAGE };
  const setReady: SyncStep = { kind: "setCondition", condition: { type: "Ready", status: "True", reason: "", message: READY_MESSAGE } };
  const setBlocked: SyncStep = { kind: "setCondition", condition: { type: "Ready", status: "False", reason: REASON_TERMINATING, message: TERMINATING_MESSAGE } };
  const rows: Array<[string, CidrView, string[], SyncStep[]]> = [
    ["a new one gets the finalizer and Ready=True", view("a", ["10.0.3.0/24"], { finalizers: [] }), [], [{ kind: "addFinalizer" }, setReady]],
    ["a ready one with its finalizer is left alone", view("a", ["10.0.3.0/24"], { conditions: [ready] }), [], []],
    ["another component's Ready message is replaced", view("a", ["10.0.3.0/24"], { conditions: [{ ...ready, message: "Example default Service CIDR is ready" }] }), [], [setReady]],
    ["a live one marked Ready=False is made ready", view("a", ["10.0.3.0/24"], { conditions: [blocked] }), [], [setReady]],
    ["other finalizers stay; ours is added", view("a", ["10.0.3.0/24"], { finalizers: ["x.io/keep"], conditions: [ready] }), [], [{ kind: "addFinalizer" }]],
    ["a deleted one holding an address is marked Terminating", view("a", ["10.0.3.0/24"], { deletedAt: NOW - 60_000, conditions: [ready] }), ["10.0.3.7"], [setBlocked]],
    ["…once", view("a", ["10.0.3.0/24"], { deletedAt: NOW - 60_000, conditions: [blocked] }), ["10.0.3.7"], []],
    ["a deleted unused one waits out the grace period", view("a", ["10.0.3.0/24"], { deletedAt: NOW - 4_000 }), [], [{ kind: "requeueAfter", ms: 6_000 }]],
    ["…then loses its finalizer", view("a", ["10.0.3.0/24"], { deletedAt: NOW - 10_000 }), [], [{ kind: "removeFinalizer" }]],
    ["a deleted one without our finalizer needs nothing", view("a", ["10.0.3.0/24"], { deletedAt: NOW - 20_000, finalizers: ["x.io/keep"] }), [], []],
  ];
  it.each(rows)("%s", (_label, target, ips, want) => {
    expect(planSync({ target, all: [target], ips: ips.map(ip), finalizer: FINALIZER, readyMessage: READY_MESSAGE, now: NOW, gracePeriodMs: 10_000 })).toEqual(want);
  });
});

describe("cidrView", () => {
  it("reads names, CIDRs, deletion time, finalizers and conditions; leaves out what does not parse", () => {
    const v = cidrView({
      metadata: { name: "a", deletionTimestamp: "2026-01-02T03:04:05Z", finalizers: [FINALIZER] },
      spec: { cidrs: ["10.0.3.0/24", "nonsense"] },
      status: { conditions: [{ type: "Ready", status: "False", reason: "Terminating", message: "m" }, "junk"] },
    });
    expect(v).toEqual({ name: "a", cidrs: [prefix("10.0.3.0/24")], deletedAt: Date.parse("2026-01-02T03:04:05Z"), finalizers: [FINALIZER], conditions: [{ type: "Ready", status: "False", reason: "Terminating", message: "m" }] });
    expect(cidrView({ metadata: { name: "b" } })).toEqual({ name: "b", cidrs: [], deletedAt: undefined, finalizers: [], conditions: [] });
    expect(cidrView({ metadata: { name: "c", deletionTimestamp: "garbled" } }).deletedAt).toBe(0);
  });
});
