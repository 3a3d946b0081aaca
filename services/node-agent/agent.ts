/**
 * The node agent composed from its parts: client configuration (TLS bootstrap when
 * only a bootstrap credential exists), the CRI client, registration and node status,
 * Lease heartbeats, the pods bound to the node, and the HTTPS server. It reaches the
 * API only through shared/client. `stop()` ends every loop and closes every connection.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { loadKubeconfig } from "../../shared/client/kubeconfig.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ClientCertificateRotation, usesBootstrappedCertificate } from "./bootstrap/rotation.ts";
import { ServingCertificateRotation } from "./bootstrap/serving-rotation.ts";
import { tlsBootstrap } from "./bootstrap/tls-bootstrap.ts";
import { checkpointContainer } from "./checkpoint.ts";
import { runInContainer } from "./run-in-container.ts";
import { RuntimeClient } from "./cri/runtime-client.ts";
import { serveContainerLogs } from "./streaming/container-logs.ts";
import type { NodeAgentOptions } from "./flags.ts";
import { LeaseController } from "./lease-controller.ts";
import { machineFacts } from "./machine.ts";
import type { NodeShape } from "./node-object.ts";
import { NODES, NodeStatusController } from "./node-status-controller.ts";
import { PodSource } from "./pod-source.ts";
import { DelegatedAuth } from "./server/delegated-auth.ts";
import { serveRemoteCommand } from "./streaming/remote-command.ts";
import { startAgentServer, type AgentServer } from "./server/agent-server.ts";
import { servingCertificate } from "./serving-cert.ts";

/** Deadline of the runtime health probe behind Ready and /healthz. */
const RUNTIME_PROBE_TIMEOUT_MS = 5000;

export interface RunningAgent {
  nodeName: string;
  server: AgentServer;
  stop(): Promise<void>;
}

export async function runNodeAgent(o: NodeAgentOptions, log: LogFn): Promise<RunningAgent> {
  const profile = getProfile(o.profile);
  await mkdir(o.rootDir, { recursive: true, mode: 0o750 });
  if (!existsSync(o.kubeconfig)) {
    if (!o.bootstrapKubeconfig) throw new Error(`client configuration ${o.kubeconfig} does not exist and no --bootstrap-kubeconfig was given`);
    log("info", "no client configuration yet: TLS bootstrap with the bootstrap credential", { bootstrapKubeconfig: o.bootstrapKubeconfig });
    await tlsBootstrap({ profile, nodeName: o.nodeName, kubeconfigPath: o.kubeconfig, bootstrapKubeconfigPath: o.bootstrapKubeconfig, certDir: o.certDir, log });
  }
  let client = new HttpsObjectClient(loadKubeconfig(o.kubeconfig));
  const runtime = new RuntimeClient(o.runtimeEndpoint, o.runtimeRequestTimeoutMs);
  let runtimeVersion = "";
  const probe = async (): Promise<{ runtimeError?: string }> => {
    try {
      const v = await runtime.version(RUNTIME_PROBE_TIMEOUT_MS);
      runtimeVersion = `${v.runtime_name}://${v.runtime_version}`;
      return {};
    } catch (err) {
      return { runtimeError: (err as Error).message };
    }
  };
  const machine = machineFacts({ nodeName: o.nodeName, rootDir: o.rootDir, nodeIP: o.nodeIP });
  let boundPort = o.port;
  const shape = (): NodeShape => ({ name: o.nodeName, labels: o.nodeLabels, maxPods: o.maxPods, port: boundPort, containerRuntimeVersion: runtimeVersion });

  const auth = new DelegatedAuth({
    profile,
    transport: () => client.transport,
    anonymous: o.anonymousAuth,
    tokenWebhook: o.tokenWebhook,
    tokenCacheTtlMs: o.tokenCacheTtlMs,
    authorizationMode: o.authorizationMode,
    authorizedTtlMs: o.authorizedTtlMs,
    unauthorizedTtlMs: o.unauthorizedTtlMs,
  });
  const pods = new PodSource(o.nodeName, log);
  const servingHosts = [o.nodeName, ...(machine.internalIP ? [machine.internalIP] : []), "127.0.0.1", "localhost"];
  const tls = await servingCertificate({ certFile: o.tlsCertFile, keyFile: o.tlsPrivateKeyFile, certDir: o.certDir, hosts: servingHosts });
  const server = await startAgentServer({
    nodeName: o.nodeName,
    address: o.address,
    port: o.port,
    tls: { ...tls, clientCaPem: o.clientCaFile ? await readFile(o.clientCaFile, "utf8") : undefined },
    auth,
    fineGrainedAuthz: o.gates.KubeletFineGrainedAuthz,
    checkpointEnabled: o.gates.ContainerCheckpoint,
    pods: () => pods.list(),
    healthy: async () => undefined,
    checkpoint: (ns, pod, container, timeouts) => checkpointContainer({ rootDir: o.rootDir, runtime, findPod: (n, p) => pods.get(n, p) }, ns, pod, container, timeouts),
    run: (ns, pod, container, cmdLine) => runInContainer({ runtime, findPod: (n, p) => pods.get(n, p) }, ns, pod, container, cmdLine),
    containerLogs: (ns, pod, container, query, req, res) => serveContainerLogs({ runtime, findPod: (n, p) => pods.get(n, p) }, ns, pod, container, query, req, res),
    upgrade: (req, socket, head, url) => serveRemoteCommand({ runtime, findPod: (n, p) => pods.get(n, p) }, req, socket, head, url),
    log,
  });
  boundPort = server.port;

  const status = new NodeStatusController(() => client, {
    profile,
    machine,
    shape,
    registerNode: o.registerNode,
    updateFrequencyMs: o.statusUpdateFrequencyMs,
    reportFrequencyMs: o.statusReportFrequencyMs,
    probe,
    log,
    onRegistered: (node) => log("info", "node registered", { node: node.metadata.name, uid: node.metadata.uid }),
  });
  const lease = new LeaseController(() => client, {
    nodeName: o.nodeName,
    namespace: profile.nodeLeaseNamespace,
    leases: { group: profile.group("coordination"), version: "v1", resource: "leases" },
    nodes: NODES,
    durationSeconds: o.leaseDurationSeconds,
    log,
  });
  status.start();
  lease.start();
  const watchPods = () => void pods.start(client).catch((err: unknown) => log("warn", "pod watch failed to start", { error: (err as Error).message }));
  watchPods();
  const rotation = usesBootstrappedCertificate(o.kubeconfig, o.certDir)
    ? new ClientCertificateRotation({
        profile,
        nodeName: o.nodeName,
        certDir: o.certDir,
        kubeconfigPath: o.kubeconfig,
        log,
        client: () => client,
        onRotated: (next) => {
          const previous = client;
          client = next;
          pods.stop();
          watchPods();
          // Requests still running on the old connections finish before they close.
          setTimeout(() => previous.close(), 30_000).unref();
        },
      })
    : undefined;
  rotation?.start();
  // With --rotate-server-certificates (and no --tls-cert-file) the serving certificate comes from a kubelet-serving request.
  const servingRotation =
    o.rotateServerCertificates && !o.tlsCertFile
      ? new ServingCertificateRotation({ profile, nodeName: o.nodeName, certDir: o.certDir, log, hosts: [o.nodeName, ...(machine.internalIP ? [machine.internalIP] : [])], client: () => client, onCertificate: (pair) => server.setCertificate(pair.certPem, pair.keyPem) })
      : undefined;
  servingRotation?.start();

  return {
    nodeName: o.nodeName,
    server,
    async stop() {
      pods.stop();
      await Promise.all([status.stop(), lease.stop(), rotation?.stop(), servingRotation?.stop()]);
      await server.close();
      runtime.close();
      client.close();
    },
  };
}
