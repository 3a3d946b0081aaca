import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../storage/object.ts";
import { evaluate, forbiddenDetail, type Level } from "./pod-security-checks.ts";
import { parseConfig, policyOf } from "./pod-security.ts";

const ok = { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] }, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } };
const c = (name: string, sc: JsonObject = ok, extra: JsonObject = {}) => ({ name, image: "i", securityContext: sc, ...extra });

describe("Pod Security Standards checks", () => {
  it.each<[string, Level, JsonObject, string]>([
    ["privileged allows anything", "privileged", { hostPID: true, containers: [c("a", { privileged: true })] }, ""],
    ["restricted-compliant pod", "restricted", { containers: [c("a")] }, ""],
    ["host namespaces", "baseline", { hostNetwork: true, hostIPC: true, containers: [c("a")] }, "host namespaces (hostNetwork=true, hostIPC=true)"],
    ["privileged containers", "baseline", { containers: [c("a", { privileged: true }), c("b", { privileged: true })] }, 'privileged (containers "a", "b" must not set securityContext.privileged=true)'],
    ["baseline capabilities", "baseline", { containers: [c("a", { capabilities: { add: ["NET_ADMIN", "CHOWN", "SYS_TIME"] } })] }, 'non-default capabilities (container "a" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add)'],
    ["hostPath", "baseline", { containers: [c("a")], volumes: [{ name: "h", hostPath: { path: "/" } }] }, 'hostPath volumes (volume "h")'],
    ["host ports", "baseline", { containers: [c("a", ok, { ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81, hostPort: 443 }] })] }, 'hostPort (container "a" uses hostPorts 443, 8080)'],
    ["unconfined seccomp at baseline", "baseline", { securityContext: { seccompProfile: { type: "Unconfined" } }, containers: [{ name: "a", image: "i" }] }, 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")'],
    ["unsafe sysctl", "baseline", { securityContext: { sysctls: [{ name: "kernel.msgmax", value: "1" }, { name: "net.ipv4.tcp_syncookies", value: "1" }] }, containers: [c("a")] }, "forbidden sysctls (kernel.msgmax)"],
    ["procMount", "baseline", { containers: [c("a", { procMount: "Unmasked" })] }, 'procMount (container "a" must not set securityContext.procMount to "Unmasked")'],
    ["restricted volumes replace hostPath", "restricted", { containers: [c("a")], volumes: [{ name: "h", hostPath: { path: "/" } }, { name: "n", nfs: { server: "s", path: "/" } }] }, 'restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")'],
    ["runAsNonRoot false on pod and container", "restricted", { securityContext: { runAsNonRoot: false }, containers: [c("a", { ...ok, runAsNonRoot: false })] }, 'runAsNonRoot != true (pod and container "a" must not set securityContext.runAsNonRoot=false)'],
    ["pod-level runAsNonRoot and seccomp cover containers", "restricted", { securityContext: { runAsNonRoot: true, seccompProfile: { type: "Localhost" } }, containers: [c("a", { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } })] }, ""],
    ["runAsUser 0", "restricted", { securityContext: { runAsUser: 0 }, containers: [c("a", { ...ok, runAsUser: 0 })] }, 'runAsUser=0 (pod and container "a" must not set runAsUser=0)'],
    ["restricted capabilities add", "restricted", { containers: [c("a", { ...ok, capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE", "SYS_ADMIN"] } })] }, 'unrestricted capabilities (container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)'],
  ])("%s", (_n, level, spec, want) => {
    expect(forbiddenDetail(evaluate(level, {}, spec))).toBe(want);
  });

  it("reads namespace labels over defaults and reports bad values", () => {
    const defaults = parseConfig(undefined).defaults;
    const { policy, errors } = policyOf({ "p/enforce": "baseline", "p/warn-version": "v1.30", "p/audit": "nope" }, "p/", defaults);
    expect(policy.enforce).toEqual({ level: "baseline", version: "latest" });
    expect(policy.warn).toEqual({ level: "privileged", version: "v1.30" });
    expect(policy.audit.level).toBe("restricted");
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe("metadata.labels[p/audit]");
    expect(() => parseConfig({ defaults: { enforce: "strict" } })).toThrow(/must be one of privileged, baseline, restricted/);
    expect(parseConfig({ exemptions: { namespaces: ["a"] } }).exemptNamespaces.has("a")).toBe(true);
  });
});
