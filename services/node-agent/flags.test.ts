import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FlagError, parseFlags } from "../../shared/cli/flags.ts";
import { parseFeatureGates } from "./feature-gates.ts";
import { NODE_AGENT_FLAGS, nodeAgentOptions } from "./flags.ts";

const options = (argv: string[]) => nodeAgentOptions(parseFlags(argv, NODE_AGENT_FLAGS));

describe("node agent flags", () => {
  it("defaults are the platform agent's", () => {
    const o = options(["--kubeconfig", "/k", "--hostname-override", "Node-A"]);
    expect(o).toMatchObject({
      kubeconfig: "/k",
      rootDir: "/var/lib/kubelet",
      certDir: "/var/lib/kubelet/pki",
      nodeName: "node-a",
      registerNode: true,
      statusUpdateFrequencyMs: 10_000,
      statusReportFrequencyMs: 300_000,
      leaseDurationSeconds: 40,
      runtimeEndpoint: "unix:///run/containerd/containerd.sock",
      runtimeRequestTimeoutMs: 120_000,
      maxPods: 110,
      port: 10250,
      address: "0.0.0.0",
      anonymousAuth: false,
      tokenWebhook: true,
      authorizationMode: "Webhook",
      gates: { ContainerCheckpoint: true, KubeletFineGrainedAuthz: true },
    });
  });

  it("reads labels, durations and gates", () => {
    const o = options(["--kubeconfig=/k", "--hostname-override=n", "--node-labels", "a=b,example.com/zone=z1", "--node-status-update-frequency=1m30s", "--feature-gates", "ContainerCheckpoint=false", "--root-dir", "/r"]);
    expect(o.nodeLabels).toEqual({ a: "b", "example.com/zone": "z1" });
    expect(o.statusUpdateFrequencyMs).toBe(90_000);
    expect(o.gates.ContainerCheckpoint).toBe(false);
    expect(o.certDir).toBe("/r/pki");
  });

  it.each<[string, string[], RegExp]>([
    ["no --kubeconfig", ["--hostname-override", "n"], /--kubeconfig is required/],
    ["a port out of range", ["--kubeconfig", "/k", "--hostname-override", "n", "--port", "70000"], /--port must be an integer between 0 and 65535/],
    ["a label without a value", ["--kubeconfig", "/k", "--hostname-override", "n", "--node-labels", "novalue"], /must be key=value/],
    ["a bad label value", ["--kubeconfig", "/k", "--hostname-override", "n", "--node-labels", "a=b c"], /invalid --node-labels value/],
    ["an unknown gate", ["--kubeconfig", "/k", "--hostname-override", "n", "--feature-gates", "Nope=true"], /unrecognized feature gate: Nope/],
    ["a gate without a boolean", ["--kubeconfig", "/k", "--hostname-override", "n", "--feature-gates", "ContainerCheckpoint=maybe"], /invalid value of ContainerCheckpoint=maybe/],
    ["a certificate without its key", ["--kubeconfig", "/k", "--hostname-override", "n", "--tls-cert-file", "/c"], /must be given together/],
    ["an unknown authorization mode", ["--kubeconfig", "/k", "--hostname-override", "n", "--authorization-mode", "RBAC"], /unknown mode "RBAC"/],
    ["a node name that is not a DNS subdomain", ["--kubeconfig", "/k", "--hostname-override", "bad_name"], /not a valid DNS subdomain/],
    ["a zero lease duration", ["--kubeconfig", "/k", "--hostname-override", "n", "--node-lease-duration-seconds", "0"], /--node-lease-duration-seconds must be an integer/],
  ])("refuses %s", (_name, argv, message) => {
    expect(() => options(argv)).toThrow(FlagError);
    expect(() => options(argv)).toThrow(message);
  });

  it("gates keep their defaults when not named", () => {
    expect(parseFeatureGates(["KubeletFineGrainedAuthz=false"])).toEqual({ ContainerCheckpoint: true, KubeletFineGrainedAuthz: false });
  });

  it("the process exits 2 with the error and the flags on a bad flag", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "main.ts"), "--kubeconfig", "/k", "--feature-gates", "Nope=true"], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" }, timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("error: invalid argument for --feature-gates: unrecognized feature gate: Nope");
    expect(r.stderr).toContain("--container-runtime-endpoint string");
  });
});
