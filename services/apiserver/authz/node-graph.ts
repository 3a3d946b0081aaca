/**
 * The Node authorizer's graph: which secrets, ConfigMaps, volume claims, volumes
 * and service accounts each node may read, derived from the pods bound to it
 * (`spec.nodeName`), the claims' bound volumes and the volumes' secrets.
 * `NodeGraph` is a pure in-memory structure; `NodeGraphWatcher` keeps one current
 * from the pod, claim and volume registries.
 */
import { podSecretNames } from "../../../shared/api/secret-references.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { Catalog } from "../registry/catalog.ts";
import type { JsonObject } from "../storage/object.ts";
import { Informer, type InformerEvent } from "./informer.ts";

export type RefKind = "secret" | "configmap" | "pvc" | "serviceaccount";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function metaOf(o: JsonObject): { name: string; namespace: string } {
  const m = obj(o.metadata) ?? {};
  return { name: str(m.name), namespace: str(m.namespace) };
}

/**
 * The objects a pod references, as `kind/namespace/name` keys: its service account,
 * the Secrets of `podSecretNames` (the platform's pod visitor, shared with the legacy
 * token cleaner), ConfigMaps (volumes, projected sources, env and envFrom) and volume
 * claims (named and ephemeral).
 */
export function podReferences(pod: JsonObject): string[] {
  const { name: podName, namespace } = metaOf(pod);
  const spec = obj(pod.spec) ?? {};
  const refs = new Set<string>();
  const add = (kind: RefKind, name: string) => {
    if (name) refs.add(`${kind}/${namespace}/${name}`);
  };
  add("serviceaccount", str(spec.serviceAccountName) || str(spec.serviceAccount));
  for (const secret of podSecretNames(pod)) add("secret", secret);
  for (const v of arr(spec.volumes)) {
    const vol = obj(v) ?? {};
    add("configmap", str(obj(vol.configMap)?.name));
    add("pvc", str(obj(vol.persistentVolumeClaim)?.claimName));
    if (obj(vol.ephemeral)) add("pvc", `${podName}-${str(vol.name)}`);
    for (const src of arr(obj(vol.projected)?.sources)) {
      add("configmap", str(obj(obj(src)?.configMap)?.name));
    }
  }
  for (const list of ["containers", "initContainers", "ephemeralContainers"]) {
    for (const c of arr(spec[list])) {
      const container = obj(c) ?? {};
      for (const e of arr(container.env)) add("configmap", str(obj(obj(obj(e)?.valueFrom)?.configMapKeyRef)?.name));
      for (const e of arr(container.envFrom)) add("configmap", str(obj(obj(e)?.configMapRef)?.name));
    }
  }
  return [...refs];
}

/** Secrets a persistent volume's node-side operations use, as `secret/namespace/name` keys. */
export function volumeSecretReferences(pv: JsonObject): string[] {
  const spec = obj(pv.spec) ?? {};
  const out = new Set<string>();
  const csi = obj(spec.csi);
  for (const k of ["nodePublishSecretRef", "nodeStageSecretRef", "nodeExpandSecretRef"]) {
    const ref = obj(csi?.[k]);
    if (ref && str(ref.name)) out.add(`secret/${str(ref.namespace)}/${str(ref.name)}`);
  }
  const az = obj(spec.azureFile);
  if (az && str(az.secretName)) out.add(`secret/${str(az.secretNamespace) || "default"}/${str(az.secretName)}`);
  for (const k of ["cephfs", "rbd", "flexVolume", "iscsi", "scaleIO", "storageos", "cinder"]) {
    const ref = obj(obj(spec[k])?.secretRef);
    if (ref && str(ref.name)) out.add(`secret/${str(ref.namespace)}/${str(ref.name)}`);
  }
  return [...out];
}

export class NodeGraph {
  private readonly pods = new Map<string, { node: string; refs: string[] }>();
  private readonly refNodes = new Map<string, Map<string, number>>();
  private readonly claimVolume = new Map<string, string>();
  private readonly volumeSecrets = new Map<string, string[]>();

  private count(ref: string, node: string, delta: number): void {
    let nodes = this.refNodes.get(ref);
    if (!nodes) this.refNodes.set(ref, (nodes = new Map()));
    const n = (nodes.get(node) ?? 0) + delta;
    if (n <= 0) nodes.delete(node);
    else nodes.set(node, n);
    if (nodes.size === 0) this.refNodes.delete(ref);
  }

  setPod(pod: JsonObject): void {
    const { name, namespace } = metaOf(pod);
    this.deletePod(namespace, name);
    const node = str(obj(pod.spec)?.nodeName);
    if (!node) return;
    const refs = podReferences(pod);
    this.pods.set(`${namespace}/${name}`, { node, refs });
    for (const r of refs) this.count(r, node, 1);
  }

  deletePod(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const old = this.pods.get(key);
    if (!old) return;
    this.pods.delete(key);
    for (const r of old.refs) this.count(r, old.node, -1);
  }

  setClaim(pvc: JsonObject): void {
    const { name, namespace } = metaOf(pvc);
    const volume = str(obj(pvc.spec)?.volumeName);
    if (volume) this.claimVolume.set(`${namespace}/${name}`, volume);
    else this.claimVolume.delete(`${namespace}/${name}`);
  }

  deleteClaim(namespace: string, name: string): void {
    this.claimVolume.delete(`${namespace}/${name}`);
  }

  setVolume(pv: JsonObject): void {
    this.volumeSecrets.set(metaOf(pv).name, volumeSecretReferences(pv));
  }

  deleteVolume(name: string): void {
    this.volumeSecrets.delete(name);
  }

  /** The node a pod is bound to, if the graph knows the pod. */
  podNode(namespace: string, name: string): string | undefined {
    return this.pods.get(`${namespace}/${name}`)?.node;
  }

  private refReachable(ref: string, node: string): boolean {
    return this.refNodes.get(ref)?.has(node) ?? false;
  }

  /** Whether a volume is used (through a bound claim) by a pod on `node`. */
  volumeReachable(pvName: string, node: string): boolean {
    for (const [claim, volume] of this.claimVolume) {
      if (volume === pvName && this.refReachable(`pvc/${claim}`, node)) return true;
    }
    return false;
  }

  /** Whether `node` has a path to the object (through a pod bound to it). */
  reachable(node: string, kind: RefKind | "pv", namespace: string, name: string): boolean {
    if (kind === "pv") return this.volumeReachable(name, node);
    if (this.refReachable(`${kind}/${namespace}/${name}`, node)) return true;
    if (kind === "secret") {
      const key = `secret/${namespace}/${name}`;
      for (const [pv, secrets] of this.volumeSecrets) if (secrets.includes(key) && this.volumeReachable(pv, node)) return true;
    }
    return false;
  }
}

/** Keeps a `NodeGraph` current from the pod, claim and volume registries. */
export class NodeGraphWatcher {
  readonly graph = new NodeGraph();
  private readonly informers: Informer[] = [];

  constructor(catalog: Catalog, profile: PlatformProfile, log?: (msg: string, fields: Record<string, unknown>) => void) {
    const core = profile.group("core");
    const wire = (plural: string, set: (o: JsonObject) => void, del: (o: JsonObject) => void) => {
      const served = catalog.lookup(core, "v1", plural);
      if (!served) return;
      const inf = new Informer(served.registry, log);
      inf.onChange((ev: InformerEvent) => {
        if (ev.type === "SYNC") {
          for (const o of inf.items.values()) set(o);
          return;
        }
        if (ev.type === "DELETED") del(ev.object);
        else set(ev.object);
      });
      this.informers.push(inf);
    };
    wire(
      "pods",
      (o) => this.graph.setPod(o),
      (o) => this.graph.deletePod(metaOf(o).namespace, metaOf(o).name),
    );
    wire(
      "persistentvolumeclaims",
      (o) => this.graph.setClaim(o),
      (o) => this.graph.deleteClaim(metaOf(o).namespace, metaOf(o).name),
    );
    wire(
      "persistentvolumes",
      (o) => this.graph.setVolume(o),
      (o) => this.graph.deleteVolume(metaOf(o).name),
    );
  }

  async start(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.start()));
  }

  stop(): void {
    for (const i of this.informers) i.stop();
  }
}
