/**
 * References to Secrets, read from plain objects (malformed parts are skipped, never
 * thrown on).
 *
 * `podSecretNames`: the names of the Secrets a pod's spec refers to, as the platform's pod visitor
 * lists them: image pull secrets; `env[].valueFrom.secretKeyRef` and
 * `envFrom[].secretRef` of init, regular and ephemeral containers; and the volumes
 * (`secret.secretName`, projected `secret` sources, `azureFile.secretName`,
 * `csi.nodePublishSecretRef` and the `secretRef` of cephfs, cinder, flexVolume, iscsi,
 * rbd, scaleIO and storageos). References through claims and volumes are not
 * followed. Empty names are left out.
 *
 * `accountListsSecret`: a ServiceAccount lists the Secret in its `secrets` (how the
 * platform tells an auto-generated legacy token from a manually created one).
 */
type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const nameOf = (v: unknown, field = "name"): string | undefined => {
  const s = obj(v)?.[field];
  return typeof s === "string" && s !== "" ? s : undefined;
};

const SECRET_REF_VOLUMES = ["cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos"];

export function podSecretNames(pod: Obj): Set<string> {
  const names = new Set<string>();
  const add = (name: string | undefined) => name !== undefined && names.add(name);
  const spec = obj(pod.spec) ?? {};
  for (const ref of arr(spec.imagePullSecrets)) add(nameOf(ref));
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const c of arr(spec[list])) {
      for (const from of arr(obj(c)?.envFrom)) add(nameOf(obj(from)?.secretRef));
      for (const env of arr(obj(c)?.env)) add(nameOf(obj(obj(env)?.valueFrom)?.secretKeyRef));
    }
  }
  for (const v of arr(spec.volumes)) {
    const volume = obj(v) ?? {};
    add(nameOf(volume.secret, "secretName"));
    add(nameOf(volume.azureFile, "secretName"));
    add(nameOf(obj(volume.csi)?.nodePublishSecretRef));
    for (const kind of SECRET_REF_VOLUMES) add(nameOf(obj(volume[kind])?.secretRef));
    for (const source of arr(obj(volume.projected)?.sources)) add(nameOf(obj(source)?.secret));
  }
  return names;
}

export function accountListsSecret(account: Obj, secretName: string): boolean {
  return arr(account.secrets).some((ref) => nameOf(ref) === secretName);
}
