/**
 * `plat apply` and `plat get` of FlowSchema and PriorityLevelConfiguration (issue 20's
 * APF item), kubernetes profile: the CLI applies a manifest of both kinds, and prints
 * the same tables as kubectl 1.34 for them (AGE masked).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, type CliEnv } from "../cli/plat-cli-env.ts";
import { layerClients, runClient } from "../support/clients.ts";

let e: CliEnv;

beforeAll(async () => {
  e = await cliEnv("kubernetes");
}, 60_000);
afterAll(async () => {
  await e?.close();
});

const maskAge = (table: string): string => table.replace(/ +\d+[smhd]\d*[smh]?( +\S+)?$/gm, (_m, tail: string | undefined) => ` <age>${tail ?? ""}`);

describe("plat and flowcontrol kinds", () => {
  it("applies a FlowSchema and a priority level, then gets them as kubectl prints them", async () => {
    const apiVersion = e.api.profile.apiVersion("flowcontrol", "v1");
    const file = join(e.dir, "apf.yaml");
    writeFileSync(
      file,
      [
        `apiVersion: ${apiVersion}`,
        "kind: PriorityLevelConfiguration",
        "metadata: {name: reports}",
        "spec: {type: Limited, limited: {nominalConcurrencyShares: 0, limitResponse: {type: Queue, queuing: {queues: 16, handSize: 4}}}}",
        "---",
        `apiVersion: ${apiVersion}`,
        "kind: FlowSchema",
        "metadata: {name: reports}",
        "spec:",
        "  priorityLevelConfiguration: {name: reports}",
        "  matchingPrecedence: 4000",
        "  distinguisherMethod: {type: ByNamespace}",
        "  rules: [{subjects: [{kind: Group, group: {name: reporters}}], resourceRules: [{verbs: [list], apiGroups: ['*'], resources: ['*'], namespaces: ['*']}]}]",
        "",
      ].join("\n"),
    );
    const applied = await e.plat(["apply", "-f", file]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.trim().split("\n")).toEqual([`prioritylevelconfiguration.${e.api.profile.group("flowcontrol")}/reports serverside-applied`, `flowschema.${e.api.profile.group("flowcontrol")}/reports serverside-applied`]);
    const stored = (await e.admin.get(`/apis/${apiVersion}/prioritylevelconfigurations/reports`)).json<{ spec: { limited: Record<string, unknown> } }>();
    expect(stored.spec.limited).toMatchObject({ nominalConcurrencyShares: 0, limitResponse: { queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } } });

    // The MISSINGPL column reads the Dangling condition: compare once the replica wrote it.
    for (let i = 0; i < 200; i++) {
      const fs = (await e.admin.get(`/apis/${apiVersion}/flowschemas/reports`)).json<{ status?: { conditions?: unknown[] } }>();
      if (fs.status?.conditions?.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const kubectl = layerClients().kubectl;
    for (const args of [
      ["get", "prioritylevelconfigurations", "reports"],
      ["get", "flowschemas", "reports"],
    ]) {
      const [p, k] = await Promise.all([e.plat(args), runClient(kubectl, args, { env: e.env, timeoutMs: 60_000 })]);
      expect(k.code, k.stderr).toBe(0);
      expect(p.code, p.stderr).toBe(0);
      expect(maskAge(p.stdout), args.join(" ")).toBe(maskAge(k.stdout));
    }
  });
});
