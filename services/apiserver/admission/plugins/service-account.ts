/**
 * ServiceAccount (the platform's plugin/pkg/admission/serviceaccount), for pod
 * creates (and the `ephemeralcontainers` subresource, which it leaves alone here):
 * - admit: `spec.serviceAccountName` defaults to `default`; the service account
 *   must exist (403 `error looking up service account <ns>/<name>: serviceaccount
 *   "<name>" not found`; a missing `default` is provisioned, standing in for the
 *   service account controller); unless the pod's or else the account's
 *   `automountServiceAccountToken` is false, a projected volume
 *   `<prefix><5 random chars>` (token with expirationSeconds 3607, the root CA
 *   ConfigMap's `ca.crt`, the namespace through the downward API; defaultMode 420)
 *   is mounted read-only at the token path in every init and app container that has
 *   no mount there yet; the account's imagePullSecrets are copied when the pod has none;
 * - validate: a mirror pod may reference no service account, secret or token
 *   projection; other pods must name an existing service account.
 * Mirror pods (the mirror annotation) are never mutated.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, Attributes, PluginContext, PluginFactory } from "../interfaces.ts";
import { admissionForbidden, annotationsOf, arr, child, childList, getFresh, isResource, obj, str } from "./util.ts";

export const SERVICE_ACCOUNT_PLUGIN = "ServiceAccount";
export const DEFAULT_SERVICE_ACCOUNT = "default";
/** The bound token lifetime the plugin asks for (an hour plus 7 s: the warn-only marker). */
export const TOKEN_EXPIRATION_SECONDS = 3607;

/** Characters of generated name suffixes (no vowels, no look-alikes). */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

export function randomSuffix(n = 5, rnd: () => number = Math.random): string {
  let s = "";
  for (let i = 0; i < n; i++) s += NAME_ALPHABET[Math.floor(rnd() * NAME_ALPHABET.length)];
  return s;
}

/** The projected volume source of the API access volume. */
export function tokenVolumeSource(profile: PlatformProfile): JsonObject {
  return {
    sources: [
      { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: "token" } },
      { configMap: { name: profile.admission.rootCAConfigMap, items: [{ key: "ca.crt", path: "ca.crt" }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
    defaultMode: 420,
  };
}

/** Pod's preference wins, then the account's, then true. */
export function shouldAutomount(sa: JsonObject, pod: JsonObject): boolean {
  const p = obj(pod.spec)?.automountServiceAccountToken;
  if (typeof p === "boolean") return p;
  if (typeof sa.automountServiceAccountToken === "boolean") return sa.automountServiceAccountToken;
  return true;
}

/** Adds the API access volume and its mounts (pure apart from `pod`). */
export function mountServiceAccountToken(pod: JsonObject, profile: PlatformProfile, suffix: string): void {
  const spec = child(pod, "spec");
  const prefix = profile.admission.apiAccessVolumePrefix;
  const mountPath = profile.admission.tokenMountPath;
  const existing = arr(spec.volumes).find((v): v is JsonObject => isObject(v) && str(v.name).startsWith(prefix));
  const volumeName = existing ? str(existing.name) : prefix + suffix;
  let needsVolume = false;
  for (const list of ["initContainers", "containers"]) {
    for (const c of arr(spec[list])) {
      if (!isObject(c)) continue;
      const mounts = childList(c, "volumeMounts");
      if (mounts.some((m) => isObject(m) && m.mountPath === mountPath)) continue;
      mounts.push({ name: volumeName, readOnly: true, mountPath });
      needsVolume = true;
    }
  }
  if (!existing && needsVolume) childList(spec, "volumes").push({ name: volumeName, projected: tokenVolumeSource(profile) });
}

/** The pod's service account name, honouring the deprecated `serviceAccount` alias. */
export function serviceAccountNameOf(pod: JsonObject): string {
  const spec = obj(pod.spec) ?? {};
  return str(spec.serviceAccountName) || str(spec.serviceAccount);
}

/** Phase-1 mutation given the looked-up account; `suffix` names a new volume. */
export function admitPod(pod: JsonObject, sa: JsonObject, profile: PlatformProfile, suffix: string): void {
  const spec = child(pod, "spec");
  if (shouldAutomount(sa, pod)) mountServiceAccountToken(pod, profile, suffix);
  const pullSecrets = arr(sa.imagePullSecrets).filter(isObject);
  if (arr(spec.imagePullSecrets).length === 0 && pullSecrets.length > 0) {
    spec.imagePullSecrets = pullSecrets.map((s) => ({ name: str(s.name) }));
  }
}

/** Every secret name a pod refers to (volumes, env, envFrom, pull secrets). */
export function podReferencesSecrets(pod: JsonObject): boolean {
  const spec = obj(pod.spec) ?? {};
  if (arr(spec.imagePullSecrets).length > 0) return true;
  for (const v of arr(spec.volumes)) {
    if (!isObject(v)) continue;
    if (obj(v.secret)) return true;
    for (const src of ["azureFile", "cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos", "csi"]) {
      const s = obj(v[src]);
      if (s && (s.secretName || s.secretRef || s.nodePublishSecretRef)) return true;
    }
    for (const p of arr(obj(v.projected)?.sources)) if (isObject(p) && obj(p.secret)) return true;
  }
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const c of arr(spec[list])) {
      if (!isObject(c)) continue;
      for (const e of arr(c.envFrom)) if (isObject(e) && obj(e.secretRef)) return true;
      for (const e of arr(c.env)) if (isObject(e) && obj(obj(e.valueFrom)?.secretKeyRef)) return true;
    }
  }
  return false;
}

/** The mirror-pod rule of validate: an error text, or undefined when allowed. */
export function mirrorPodViolation(pod: JsonObject): string | undefined {
  if (serviceAccountNameOf(pod)) return "a mirror pod may not reference service accounts";
  if (podReferencesSecrets(pod)) return "a mirror pod may not reference secrets";
  for (const v of arr(obj(pod.spec)?.volumes)) {
    for (const p of arr(obj(isObject(v) ? v.projected : undefined)?.sources)) {
      if (isObject(p) && obj(p.serviceAccountToken)) return "a mirror pod may not use ServiceAccountToken volume projections";
    }
  }
  return undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class ServiceAccountPlugin implements AdmissionPlugin {
  readonly name = SERVICE_ACCOUNT_PLUGIN;

  constructor(private readonly ctx: PluginContext) {}

  handles(op: string): boolean {
    return op === "CREATE" || op === "UPDATE";
  }

  private applies(a: Attributes): a is Attributes & { object: JsonObject } {
    return isResource(a, "", "pods", ["", "ephemeralcontainers"]) && a.object !== undefined;
  }

  private isMirror(pod: JsonObject): boolean {
    return this.ctx.profile.admission.mirrorPod in annotationsOf(pod);
  }

  /**
   * The account. `default` is what the service account controller keeps in every
   * namespace; until that controller runs in the controller manager, a missing
   * `default` is created here (what the controller would do), then looked up again
   * a few times as the platform does.
   */
  private async lookup(a: Attributes, name: string): Promise<JsonObject> {
    const ref = { group: "", resource: "serviceaccounts", namespace: a.namespace, name };
    const found = await getFresh(this.ctx.objects, ref);
    if (found) return found;
    if (name === DEFAULT_SERVICE_ACCOUNT) {
      try {
        return await this.ctx.objects.create("", "serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: a.namespace } });
      } catch {
        // AlreadyExists (a concurrent create) or a terminating namespace: look it up below.
      }
      const retryMs = 100 + Math.floor(Math.random() * 100);
      for (let i = 0; i < 10; i++) {
        const sa = await this.ctx.objects.get(ref);
        if (sa) return sa;
        await sleep(retryMs);
      }
    }
    throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: serviceaccount ${JSON.stringify(name)} not found`);
  }

  // Synchronous for everything but pod creates.
  admit(a: Attributes): Promise<void> | undefined {
    return a.operation !== "CREATE" || !this.applies(a) ? undefined : this.admitCreate(a);
  }

  private async admitCreate(a: Attributes): Promise<void> {
    if (a.operation !== "CREATE" || !this.applies(a)) return;
    const pod = a.object;
    if (this.isMirror(pod)) return;
    const spec = child(pod, "spec");
    const name = serviceAccountNameOf(pod) || DEFAULT_SERVICE_ACCOUNT;
    spec.serviceAccountName = name;
    spec.serviceAccount = name;
    const sa = await this.lookup(a, name);
    admitPod(pod, sa, this.ctx.profile, randomSuffix());
  }

  validate(a: Attributes): Promise<void> | undefined {
    return a.operation !== "CREATE" || !this.applies(a) ? undefined : this.validateCreate(a);
  }

  private async validateCreate(a: Attributes): Promise<void> {
    if (a.operation !== "CREATE" || !this.applies(a)) return;
    const pod = a.object;
    if (this.isMirror(pod)) {
      const err = mirrorPodViolation(pod);
      if (err) throw admissionForbidden(a, err);
      return;
    }
    const name = serviceAccountNameOf(pod);
    if (!name) throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${str(obj(pod.metadata)?.name)}`);
    await this.lookup(a, name);
  }
}

export const serviceAccountPlugin: PluginFactory = (ctx) => new ServiceAccountPlugin(ctx);
