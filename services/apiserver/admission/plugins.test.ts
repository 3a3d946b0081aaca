/** The enabled plugin names from the flags: default-on set, additions, removals, order, unknown names. */
import { describe, expect, it } from "vitest";
import type { AdmissionPlugin } from "./interfaces.ts";
import { PluginRegistry, resolveEnabled } from "./plugins.ts";

function registry(names: string[]): PluginRegistry {
  const r = new PluginRegistry();
  for (const name of names) r.register(name, (): AdmissionPlugin => ({ name, handles: () => true }));
  return r;
}

describe("resolveEnabled", () => {
  const r = registry(["ValidatingAdmissionWebhook", "NodeRestriction", "NamespaceLifecycle", "AlwaysDeny", "MutatingAdmissionWebhook", "ResourceQuota"]);

  it("enables the registered default-on plugins in the recommended order", () => {
    expect(resolveEnabled(r, { enable: [], disable: [] })).toEqual(["NamespaceLifecycle", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "ResourceQuota"]);
  });

  it("adds and removes by the flags, whatever their order", () => {
    expect(resolveEnabled(r, { enable: ["AlwaysDeny", "NodeRestriction"], disable: ["ResourceQuota"] })).toEqual([
      "NamespaceLifecycle",
      "NodeRestriction",
      "MutatingAdmissionWebhook",
      "ValidatingAdmissionWebhook",
      "AlwaysDeny",
    ]);
  });

  it("rejects unknown and overlapping names", () => {
    expect(() => resolveEnabled(r, { enable: ["Nope"], disable: [] })).toThrow('enable-admission-plugins plugin "Nope" is unknown');
    expect(() => resolveEnabled(r, { enable: [], disable: ["Nope"] })).toThrow('disable-admission-plugins plugin "Nope" is unknown');
    expect(() => resolveEnabled(r, { enable: ["AlwaysDeny"], disable: ["AlwaysDeny"] })).toThrow("in enable-admission-plugins and disable-admission-plugins overlapped");
  });

  it("refuses a second factory under a taken name", () => {
    const x = new PluginRegistry();
    const f = (): AdmissionPlugin => ({ name: "X", handles: () => true });
    x.register("X", f);
    x.register("X", f);
    expect(() => x.register("X", () => ({ name: "X", handles: () => true }))).toThrow("registered twice");
  });
});
