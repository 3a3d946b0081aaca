/**
 * The Pod Security Standards as checks over a pod's metadata and spec (the
 * platform's pod-security-admission policy package), in the order of their check
 * ids. Each failing check yields a reason and a detail; a level's result joins them
 * as `reason (detail), reason (detail)`. `baseline` runs the baseline checks,
 * `restricted` the baseline checks plus the restricted ones (a restricted check
 * replaces its baseline counterpart: capabilities, seccompProfile); `privileged`
 * allows everything. All versions are evaluated with the latest checks.
 */
import { isObject, type JsonObject } from "../../storage/object.ts";
import { arr, obj, str } from "./util.ts";

export type Level = "privileged" | "baseline" | "restricted";
export const LEVELS: readonly Level[] = ["privileged", "baseline", "restricted"];

export interface CheckFailure {
  reason: string;
  detail: string;
}

interface Named {
  name: string;
  sc: JsonObject;
  c: JsonObject;
}

function containers(spec: JsonObject): Named[] {
  const out: Named[] = [];
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const c of arr(spec[list])) if (isObject(c)) out.push({ name: str(c.name), sc: obj(c.securityContext) ?? {}, c });
  }
  return out;
}

const q = (s: string) => JSON.stringify(s);
const quoted = (names: string[]) => names.map(q).join(", ");
/** `container "a"` or `containers "a", "b"`. */
const plural = (word: string, names: string[]) => `${word}${names.length === 1 ? "" : "s"} ${quoted(names)}`;

const BASELINE_CAPS = new Set(["AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"]);
const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
  "net.ipv4.tcp_rmem",
  "net.ipv4.tcp_wmem",
]);
const RESTRICTED_VOLUME_OK = new Set(["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret", "image"]);

type Check = (spec: JsonObject, podMeta: JsonObject) => CheckFailure | undefined;

const allowPrivilegeEscalation: Check = (spec) => {
  const bad = containers(spec).filter((c) => c.sc.allowPrivilegeEscalation !== false).map((c) => c.name);
  return bad.length ? { reason: "allowPrivilegeEscalation != false", detail: `${plural("container", bad)} must set securityContext.allowPrivilegeEscalation=false` } : undefined;
};

const capabilitiesBaseline: Check = (spec) => {
  const names: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const added = arr(obj(c.sc.capabilities)?.add).map(str).filter((x) => !BASELINE_CAPS.has(x));
    if (added.length) {
      names.push(c.name);
      for (const a of added) caps.add(a);
    }
  }
  return names.length ? { reason: "non-default capabilities", detail: `${plural("container", names)} must not include ${quoted([...caps].sort())} in securityContext.capabilities.add` } : undefined;
};

const capabilitiesRestricted: Check = (spec) => {
  const noDrop: string[] = [];
  const adders: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const capObj = obj(c.sc.capabilities) ?? {};
    if (!arr(capObj.drop).map(str).includes("ALL")) noDrop.push(c.name);
    const added = arr(capObj.add).map(str).filter((x) => x !== "NET_BIND_SERVICE");
    if (added.length) {
      adders.push(c.name);
      for (const a of added) caps.add(a);
    }
  }
  const parts: string[] = [];
  if (noDrop.length) parts.push(`${plural("container", noDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adders.length) parts.push(`${plural("container", adders)} must not include ${quoted([...caps].sort())} in securityContext.capabilities.add`);
  return parts.length ? { reason: "unrestricted capabilities", detail: parts.join("; ") } : undefined;
};

const hostNamespaces: Check = (spec) => {
  const set = ["hostNetwork", "hostPID", "hostIPC"].filter((k) => spec[k] === true).map((k) => `${k}=true`);
  return set.length ? { reason: "host namespaces", detail: set.join(", ") } : undefined;
};

const hostPathVolumes: Check = (spec) => {
  const bad = arr(spec.volumes).filter((v): v is JsonObject => isObject(v) && obj(v.hostPath) !== undefined).map((v) => str(v.name));
  return bad.length ? { reason: "hostPath volumes", detail: plural("volume", bad) } : undefined;
};

const hostPorts: Check = (spec) => {
  const names: string[] = [];
  const ports: number[] = [];
  for (const c of containers(spec)) {
    const hp = arr(c.c.ports).filter(isObject).map((p) => Number(p.hostPort ?? 0)).filter((n) => n !== 0);
    if (hp.length) {
      names.push(c.name);
      ports.push(...hp);
    }
  }
  if (!names.length) return undefined;
  const unique = [...new Set(ports.map(String))].sort();
  const portWord = unique.length === 1 ? "hostPort" : "hostPorts";
  return { reason: "hostPort", detail: `${plural("container", names)} ${names.length === 1 ? "uses" : "use"} ${portWord} ${unique.join(", ")}` };
};

const privileged: Check = (spec) => {
  const bad = containers(spec).filter((c) => c.sc.privileged === true).map((c) => c.name);
  return bad.length ? { reason: "privileged", detail: `${plural("container", bad)} must not set securityContext.privileged=true` } : undefined;
};

const procMount: Check = (spec) => {
  const bad = containers(spec).filter((c) => c.sc.procMount !== undefined && c.sc.procMount !== "Default");
  if (!bad.length) return undefined;
  const values = [...new Set(bad.map((c) => str(c.sc.procMount)))];
  return { reason: "procMount", detail: `${plural("container", bad.map((c) => c.name))} must not set securityContext.procMount to ${quoted(values)}` };
};

const restrictedVolumes: Check = (spec) => {
  const names: string[] = [];
  const types = new Set<string>();
  for (const v of arr(spec.volumes)) {
    if (!isObject(v)) continue;
    const kinds = Object.keys(v).filter((k) => k !== "name" && !RESTRICTED_VOLUME_OK.has(k));
    if (kinds.length) {
      names.push(str(v.name));
      for (const k of kinds) types.add(k);
    }
  }
  if (!names.length) return undefined;
  const t = [...types].sort();
  return { reason: "restricted volume types", detail: `${plural("volume", names)} ${names.length === 1 ? "uses" : "use"} restricted volume ${t.length === 1 ? "type" : "types"} ${quoted(t)}` };
};

const runAsNonRoot: Check = (spec) => {
  const podSc = obj(spec.securityContext) ?? {};
  const badSetters: string[] = [];
  if (podSc.runAsNonRoot === false) badSetters.push("pod");
  const podTrue = podSc.runAsNonRoot === true;
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of containers(spec)) {
    if (typeof c.sc.runAsNonRoot === "boolean") {
      if (!c.sc.runAsNonRoot) explicitlyBad.push(c.name);
    } else if (!podTrue) implicitlyBad.push(c.name);
  }
  if (explicitlyBad.length) badSetters.push(plural("container", explicitlyBad));
  if (badSetters.length) return { reason: "runAsNonRoot != true", detail: `${badSetters.join(" and ")} must not set securityContext.runAsNonRoot=false` };
  if (implicitlyBad.length) return { reason: "runAsNonRoot != true", detail: `pod or ${plural("container", implicitlyBad)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

const runAsUser: Check = (spec) => {
  const badSetters: string[] = [];
  if (obj(spec.securityContext)?.runAsUser === 0) badSetters.push("pod");
  const bad = containers(spec).filter((c) => c.sc.runAsUser === 0).map((c) => c.name);
  if (bad.length) badSetters.push(plural("container", bad));
  return badSetters.length ? { reason: "runAsUser=0", detail: `${badSetters.join(" and ")} must not set runAsUser=0` } : undefined;
};

const seccompType = (sc: JsonObject | undefined): string | undefined => {
  const p = obj(sc?.seccompProfile);
  return p ? str(p.type) : undefined;
};

/** Shared shape of both seccomp checks: explicit bad values first, then (restricted) unset containers. */
function seccompCheck(spec: JsonObject, valid: (t: string) => boolean, requireSet: boolean): CheckFailure | undefined {
  const badSetters: string[] = [];
  const badValues = new Set<string>();
  const podType = seccompType(obj(spec.securityContext));
  let podSet = false;
  if (podType !== undefined) {
    if (!valid(podType)) {
      badSetters.push("pod");
      badValues.add(podType);
    } else podSet = true;
  }
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of containers(spec)) {
    const t = seccompType(c.sc);
    if (t !== undefined) {
      if (!valid(t)) {
        explicitlyBad.push(c.name);
        badValues.add(t);
      }
    } else if (!podSet) implicitlyBad.push(c.name);
  }
  if (explicitlyBad.length) badSetters.push(plural("container", explicitlyBad));
  if (badSetters.length) {
    return { reason: "seccompProfile", detail: `${badSetters.join(" and ")} must not set securityContext.seccompProfile.type to ${quoted([...badValues].sort())}` };
  }
  if (requireSet && implicitlyBad.length) {
    return { reason: "seccompProfile", detail: `pod or ${plural("container", implicitlyBad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  }
  return undefined;
}

const seccompBaseline: Check = (spec) => seccompCheck(spec, (t) => t !== "Unconfined", false);
const seccompRestricted: Check = (spec) => seccompCheck(spec, (t) => t === "RuntimeDefault" || t === "Localhost", true);

const sysctls: Check = (spec) => {
  const bad = arr(obj(spec.securityContext)?.sysctls).filter(isObject).map((s) => str(s.name)).filter((n) => !SAFE_SYSCTLS.has(n));
  return bad.length ? { reason: "forbidden sysctls", detail: bad.join(", ") } : undefined;
};

const windowsHostProcess: Check = (spec) => {
  const podHp = obj(obj(spec.securityContext)?.windowsOptions)?.hostProcess === true;
  const bad = containers(spec).filter((c) => obj(c.sc.windowsOptions)?.hostProcess === true).map((c) => c.name);
  if (!podHp && !bad.length) return undefined;
  const who = podHp && bad.length ? `pod and ${plural("container", bad)}` : podHp ? "pod" : plural("container", bad);
  return { reason: "hostProcess", detail: `${who} must not set securityContext.windowsOptions.hostProcess=true` };
};

/** Checks by id; `replaces` names the baseline check a restricted check supersedes. */
const CHECKS: ReadonlyArray<{ id: string; level: Exclude<Level, "privileged">; check: Check; replaces?: string }> = [
  { id: "allowPrivilegeEscalation", level: "restricted", check: allowPrivilegeEscalation },
  { id: "capabilities_baseline", level: "baseline", check: capabilitiesBaseline },
  { id: "capabilities_restricted", level: "restricted", check: capabilitiesRestricted, replaces: "capabilities_baseline" },
  { id: "hostNamespaces", level: "baseline", check: hostNamespaces },
  { id: "hostPathVolumes", level: "baseline", check: hostPathVolumes },
  { id: "hostPorts", level: "baseline", check: hostPorts },
  { id: "privileged", level: "baseline", check: privileged },
  { id: "procMount", level: "baseline", check: procMount },
  { id: "restrictedVolumes", level: "restricted", check: restrictedVolumes, replaces: "hostPathVolumes" },
  { id: "runAsNonRoot", level: "restricted", check: runAsNonRoot },
  { id: "runAsUser", level: "restricted", check: runAsUser },
  { id: "seccompProfile_baseline", level: "baseline", check: seccompBaseline },
  { id: "seccompProfile_restricted", level: "restricted", check: seccompRestricted, replaces: "seccompProfile_baseline" },
  { id: "sysctls", level: "baseline", check: sysctls },
  { id: "windowsHostProcess", level: "baseline", check: windowsHostProcess },
];

/** The failures of a pod (metadata, spec) at a level, in check order. */
export function evaluate(level: Level, podMeta: JsonObject, spec: JsonObject): CheckFailure[] {
  if (level === "privileged") return [];
  const active = CHECKS.filter((c) => c.level === "baseline" || level === "restricted");
  const replaced = new Set(active.map((c) => c.replaces).filter((r): r is string => !!r));
  const out: CheckFailure[] = [];
  for (const c of active) {
    if (replaced.has(c.id)) continue;
    const f = c.check(spec, podMeta);
    if (f) out.push(f);
  }
  return out;
}

/** `reason (detail), reason (detail)`. */
export function forbiddenDetail(failures: CheckFailure[]): string {
  return failures.map((f) => (f.detail ? `${f.reason} (${f.detail})` : f.reason)).join(", ");
}
