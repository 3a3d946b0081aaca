/**
 * The node agent's command line: the platform's flag names and defaults (the secure
 * defaults of its configuration file for authentication and authorization: anonymous
 * requests refused, bearer tokens checked by TokenReview, decisions by
 * SubjectAccessReview). `nodeAgentOptions` validates and completes the values.
 */
import { join } from "node:path";
import { FlagError, type FlagSpec, type FlagValues } from "../../shared/cli/flags.ts";
import { featureGatesFlag } from "../../shared/featuregate/gates.ts";
import { NODE_AGENT_GATES, parseFeatureGates, type GateStates } from "./feature-gates.ts";
import { defaultNodeName } from "./machine.ts";

export const NODE_AGENT_FLAGS: Record<string, FlagSpec> = {
  kubeconfig: { kind: "string", help: "Path to a client configuration file, specifying how to connect to the API server. Written by TLS bootstrap when --bootstrap-kubeconfig is given and this file does not exist." },
  "bootstrap-kubeconfig": { kind: "string", help: "Path to a client configuration file used to get a client certificate for the node agent (a bootstrap token); the certificate and key are written under --cert-dir and a configuration referencing them to --kubeconfig." },
  "root-dir": { kind: "string", default: "/var/lib/kubelet", help: "Directory path for managing node agent files (checkpoints, certificates)." },
  "cert-dir": { kind: "string", help: "The directory where the TLS certs are located (default <root-dir>/pki)." },
  "hostname-override": { kind: "string", help: "If non-empty, will use this string as identification instead of the actual hostname (the node name)." },
  "node-ip": { kind: "string", help: "IP address of the node; reported as its InternalIP address." },
  "node-labels": { kind: "list", help: "Labels to add when registering the node in the cluster. Labels must be key=value pairs separated by ','." },
  "register-node": { kind: "boolean", default: true, help: "Register the node with the API server." },
  "node-status-update-frequency": { kind: "duration", default: 10_000, help: "Specifies how often the node agent computes node status and posts it when it changed." },
  "node-status-report-frequency": { kind: "duration", default: 300_000, help: "How often the node agent posts node status when it has not changed." },
  "node-lease-duration-seconds": { kind: "number", default: 40, help: "The duration the node agent sets on its Lease; the lease is renewed every quarter of it." },
  "container-runtime-endpoint": { kind: "string", default: "unix:///run/containerd/containerd.sock", help: "The endpoint of the container runtime service (a unix socket)." },
  "runtime-request-timeout": { kind: "duration", default: 120_000, help: "Timeout of all runtime requests except long running ones; a checkpoint without a timeout uses it." },
  "feature-gates": featureGatesFlag(NODE_AGENT_GATES),
  "max-pods": { kind: "number", default: 110, help: "Number of Pods that can run on this node." },
  port: { kind: "number", default: 10250, help: "The port for the node agent to serve on (0 picks a free port)." },
  address: { kind: "string", default: "0.0.0.0", help: "The IP address for the node agent to serve on." },
  "tls-cert-file": { kind: "string", help: "File containing x509 certificate used for serving HTTPS. Without it, a self-signed certificate and key are generated in --cert-dir." },
  "rotate-server-certificates": { kind: "boolean", default: false, help: "Auto-request and rotate the serving certificate by requesting a certificate signing request (signer <profile>/kubelet-serving) from the API server; it must be approved by an approver (the controller manager does not approve serving requests). Ignored when --tls-cert-file is given." },
  "tls-private-key-file": { kind: "string", help: "File containing x509 private key matching --tls-cert-file." },
  "client-ca-file": { kind: "string", help: "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate." },
  "anonymous-auth": { kind: "boolean", default: false, help: "Enables anonymous requests to the node agent server (username system:anonymous, group system:unauthenticated)." },
  "authentication-token-webhook": { kind: "boolean", default: true, help: "Use the TokenReview API to determine authentication for bearer tokens." },
  "authentication-token-webhook-cache-ttl": { kind: "duration", default: 120_000, help: "The duration to cache responses from the webhook token authenticator." },
  "authorization-mode": { kind: "string", default: "Webhook", help: "Authorization mode for the node agent server: AlwaysAllow or Webhook (SubjectAccessReview)." },
  "authorization-webhook-cache-authorized-ttl": { kind: "duration", default: 300_000, help: "The duration to cache 'authorized' responses from the webhook authorizer." },
  "authorization-webhook-cache-unauthorized-ttl": { kind: "duration", default: 30_000, help: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
  profile: { kind: "string", default: "plat", help: "Naming profile of the platform: plat or kubernetes" },
  help: { kind: "boolean", help: "Print the flags and exit" },
};

export interface NodeAgentOptions {
  kubeconfig: string;
  bootstrapKubeconfig?: string;
  rootDir: string;
  certDir: string;
  nodeName: string;
  nodeIP?: string;
  nodeLabels: Record<string, string>;
  registerNode: boolean;
  statusUpdateFrequencyMs: number;
  statusReportFrequencyMs: number;
  leaseDurationSeconds: number;
  runtimeEndpoint: string;
  runtimeRequestTimeoutMs: number;
  gates: GateStates;
  maxPods: number;
  port: number;
  address: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  rotateServerCertificates: boolean;
  clientCaFile?: string;
  anonymousAuth: boolean;
  tokenWebhook: boolean;
  tokenCacheTtlMs: number;
  authorizationMode: "AlwaysAllow" | "Webhook";
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  profile: string;
}

const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function parseLabels(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) {
    const eq = e.indexOf("=");
    if (eq <= 0) throw new FlagError(`invalid --node-labels entry ${JSON.stringify(e)}: must be key=value`);
    const key = e.slice(0, eq).trim();
    const value = e.slice(eq + 1).trim();
    if (!LABEL_KEY.test(key) || key.length > 317) throw new FlagError(`invalid --node-labels key ${JSON.stringify(key)}`);
    if (!LABEL_VALUE.test(value) || value.length > 63) throw new FlagError(`invalid --node-labels value ${JSON.stringify(value)} for ${key}`);
    out[key] = value;
  }
  return out;
}

function positiveInt(values: FlagValues, name: string, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const v = values[name];
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new FlagError(`--${name} must be an integer between ${min} and ${max}`);
  return v;
}

function positiveDuration(values: FlagValues, name: string): number {
  const v = values[name] as number;
  if (!(v > 0)) throw new FlagError(`--${name} must be greater than zero`);
  return v;
}

function optionalString(values: FlagValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" && v !== "" ? v : undefined;
}

export function nodeAgentOptions(values: FlagValues): NodeAgentOptions {
  const kubeconfig = optionalString(values, "kubeconfig");
  if (!kubeconfig) throw new FlagError("--kubeconfig is required");
  const rootDir = String(values["root-dir"]);
  const mode = String(values["authorization-mode"]);
  if (mode !== "AlwaysAllow" && mode !== "Webhook") throw new FlagError(`--authorization-mode: unknown mode ${JSON.stringify(mode)}; want AlwaysAllow or Webhook`);
  const tlsCertFile = optionalString(values, "tls-cert-file");
  const tlsPrivateKeyFile = optionalString(values, "tls-private-key-file");
  if (!!tlsCertFile !== !!tlsPrivateKeyFile) throw new FlagError("--tls-cert-file and --tls-private-key-file must be given together");
  let gates: GateStates;
  try {
    gates = parseFeatureGates(values["feature-gates"] as string[]);
  } catch (err) {
    throw new FlagError(`invalid argument for --feature-gates: ${(err as Error).message}`);
  }
  const nodeName = (optionalString(values, "hostname-override") ?? defaultNodeName()).trim().toLowerCase();
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(nodeName) || nodeName.length > 253) {
    throw new FlagError(`node name ${JSON.stringify(nodeName)} is not a valid DNS subdomain name`);
  }
  return {
    kubeconfig,
    bootstrapKubeconfig: optionalString(values, "bootstrap-kubeconfig"),
    rootDir,
    certDir: optionalString(values, "cert-dir") ?? join(rootDir, "pki"),
    nodeName,
    nodeIP: optionalString(values, "node-ip"),
    nodeLabels: parseLabels(values["node-labels"] as string[]),
    registerNode: values["register-node"] === true,
    statusUpdateFrequencyMs: positiveDuration(values, "node-status-update-frequency"),
    statusReportFrequencyMs: positiveDuration(values, "node-status-report-frequency"),
    leaseDurationSeconds: positiveInt(values, "node-lease-duration-seconds"),
    runtimeEndpoint: String(values["container-runtime-endpoint"]),
    runtimeRequestTimeoutMs: positiveDuration(values, "runtime-request-timeout"),
    gates,
    maxPods: positiveInt(values, "max-pods"),
    port: positiveInt(values, "port", 0, 65535),
    address: String(values.address),
    tlsCertFile,
    tlsPrivateKeyFile,
    rotateServerCertificates: values["rotate-server-certificates"] === true,
    clientCaFile: optionalString(values, "client-ca-file"),
    anonymousAuth: values["anonymous-auth"] === true,
    tokenWebhook: values["authentication-token-webhook"] === true,
    tokenCacheTtlMs: values["authentication-token-webhook-cache-ttl"] as number,
    authorizationMode: mode,
    authorizedTtlMs: values["authorization-webhook-cache-authorized-ttl"] as number,
    unauthorizedTtlMs: values["authorization-webhook-cache-unauthorized-ttl"] as number,
    profile: String(values.profile),
  };
}
