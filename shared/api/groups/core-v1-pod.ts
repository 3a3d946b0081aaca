/**
 * core/v1 pod types: PodSpec (scheduling, security, DNS, volumes, containers),
 * PodStatus, PodTemplateSpec, and the pod defaulting that workload kinds of
 * other groups reuse for their templates (`defaultPodSpec`).
 */
import { bool, enumOf, format, int32, int64, list, mapOf, obj, str, tag, time } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { parseQuantity } from "../../schema/formats.ts";
import type { FieldError, Schema } from "../../schema/types.ts";
import { labelSelector, objectMeta } from "./meta-v1.ts";
import {
  C,
  conditionStatus,
  localObjectReference,
  nodeSelector,
  nodeSelectorTerm,
  resourceList,
  resourceRequirements,
  toleration,
} from "./core-v1-common.ts";
import { appArmorProfile, container, containerStatus, ephemeralContainer, seccompProfile, seLinuxOptions, windowsSecurityContextOptions } from "./core-v1-container.ts";
import { volume } from "./core-v1-volume.ts";

type Obj = Record<string, unknown>;

// ---- scheduling ----

export const preferredSchedulingTerm = C(
  "PreferredSchedulingTerm",
  obj(
    { weight: tag(1, int32({ minimum: 1, maximum: 100, description: "Weight of the term." })), preference: tag(2, nodeSelectorTerm) },
    { required: ["weight", "preference"], description: "A weighted node selector term." },
  ),
);

export const nodeAffinity = C(
  "NodeAffinity",
  obj(
    {
      requiredDuringSchedulingIgnoredDuringExecution: tag(1, nodeSelector),
      preferredDuringSchedulingIgnoredDuringExecution: tag(2, list(preferredSchedulingTerm, { listType: "atomic" })),
    },
    { description: "Node affinity rules." },
  ),
);

export const podAffinityTerm = C(
  "PodAffinityTerm",
  obj(
    {
      labelSelector: tag(1, labelSelector),
      namespaces: tag(2, list(str(), { listType: "atomic", description: "Namespaces the term applies to." })),
      topologyKey: tag(3, str({ minLength: 1, description: "Node label key defining co-location." })),
      namespaceSelector: tag(4, labelSelector),
      matchLabelKeys: tag(5, list(str(), { listType: "atomic" })),
      mismatchLabelKeys: tag(6, list(str(), { listType: "atomic" })),
    },
    { required: ["topologyKey"], description: "A set of pods to be (or not be) co-located with." },
  ),
);

export const weightedPodAffinityTerm = C(
  "WeightedPodAffinityTerm",
  obj(
    { weight: tag(1, int32({ minimum: 1, maximum: 100 })), podAffinityTerm: tag(2, podAffinityTerm) },
    { required: ["weight", "podAffinityTerm"], description: "A weighted pod affinity term." },
  ),
);

const podAffinityFields = () => ({
  requiredDuringSchedulingIgnoredDuringExecution: tag(1, list(podAffinityTerm, { listType: "atomic" })),
  preferredDuringSchedulingIgnoredDuringExecution: tag(2, list(weightedPodAffinityTerm, { listType: "atomic" })),
});

export const affinity = C(
  "Affinity",
  obj(
    {
      nodeAffinity: tag(1, nodeAffinity),
      podAffinity: tag(2, C("PodAffinity", obj(podAffinityFields(), { description: "Pod affinity rules." }))),
      podAntiAffinity: tag(3, C("PodAntiAffinity", obj(podAffinityFields(), { description: "Pod anti-affinity rules." }))),
    },
    { description: "Scheduling affinity rules." },
  ),
);

export const topologySpreadConstraint = C(
  "TopologySpreadConstraint",
  obj(
    {
      maxSkew: tag(1, int32({ minimum: 1, description: "Maximum allowed difference of matching pods between domains." })),
      topologyKey: tag(2, str({ description: "Node label key of the topology domains." })),
      whenUnsatisfiable: tag(3, enumOf(["DoNotSchedule", "ScheduleAnyway"], { description: "What to do when the constraint cannot be met." })),
      labelSelector: tag(4, labelSelector),
      minDomains: tag(5, int32({ minimum: 1 })),
      nodeAffinityPolicy: tag(6, enumOf(["Honor", "Ignore"])),
      nodeTaintsPolicy: tag(7, enumOf(["Honor", "Ignore"])),
      matchLabelKeys: tag(8, list(str(), { listType: "atomic" })),
    },
    { required: ["maxSkew", "topologyKey", "whenUnsatisfiable"], description: "How pods spread across topology domains." },
  ),
);

// ---- pod-level settings ----

export const podSecurityContext = C(
  "PodSecurityContext",
  obj(
    {
      seLinuxOptions: tag(1, seLinuxOptions),
      windowsOptions: tag(8, windowsSecurityContextOptions),
      runAsUser: tag(2, int64()),
      runAsGroup: tag(6, int64()),
      runAsNonRoot: tag(3, bool()),
      supplementalGroups: tag(4, list(int64(), { listType: "atomic" })),
      supplementalGroupsPolicy: tag(12, enumOf(["Merge", "Strict"])),
      fsGroup: tag(5, int64()),
      sysctls: tag(7, list(C("Sysctl", obj({ name: tag(1, str()), value: tag(2, str()) }, { required: ["name", "value"] })), { listType: "atomic" })),
      fsGroupChangePolicy: tag(9, enumOf(["OnRootMismatch", "Always"])),
      seccompProfile: tag(10, seccompProfile),
      appArmorProfile: tag(11, appArmorProfile),
      seLinuxChangePolicy: tag(13, str({ description: "MountOption or Recursive." })),
    },
    { description: "Pod-level security settings." },
  ),
);

export const hostAlias = C(
  "HostAlias",
  obj({ ip: tag(1, format("ip")), hostnames: tag(2, list(str(), { listType: "atomic" })) }, { required: ["ip"], description: "An /etc/hosts entry." }),
);

export const podDNSConfig = C(
  "PodDNSConfig",
  obj(
    {
      nameservers: tag(1, list(str(), { listType: "atomic" })),
      searches: tag(2, list(str(), { listType: "atomic" })),
      options: tag(3, list(C("PodDNSConfigOption", obj({ name: tag(1, str()), value: tag(2, str()) })), { listType: "atomic" })),
    },
    { description: "Extra DNS settings." },
  ),
);

export const podResourceClaim = C(
  "PodResourceClaim",
  obj(
    { name: tag(1, format("dns1123-label")), resourceClaimName: tag(3, str()), resourceClaimTemplateName: tag(4, str()) },
    { required: ["name"], description: "A ResourceClaim used by the pod." },
  ),
);

export const RESTART_POLICIES = ["Always", "OnFailure", "Never"];

export const podSpec = C(
  "PodSpec",
  obj(
    {
      volumes: tag(1, list(volume, { listType: "map", mapKeys: ["name"], patchStrategy: "merge,retainKeys", patchMergeKey: "name", description: "Volumes of the pod." })),
      initContainers: tag(20, list(container, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "Containers run in order before the app containers." })),
      containers: tag(2, list(container, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "App containers." })),
      ephemeralContainers: tag(34, list(ephemeralContainer, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "Debugging containers." })),
      restartPolicy: tag(3, enumOf(RESTART_POLICIES, { default: "Always", description: "Restart policy of the containers." })),
      terminationGracePeriodSeconds: tag(4, int64({ default: 30, minimum: 0, description: "Grace period for termination." })),
      activeDeadlineSeconds: tag(5, int64({ minimum: 1, description: "Time the pod may be active before it is failed." })),
      dnsPolicy: tag(6, enumOf(["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"], { default: "ClusterFirst", description: "DNS policy." })),
      nodeSelector: tag(7, mapOf(str(), { mapType: "atomic", description: "Node labels the pod requires." })),
      serviceAccountName: tag(8, str({ description: "ServiceAccount the pod runs as." })),
      serviceAccount: tag(9, str({ description: "Deprecated alias of serviceAccountName." })),
      automountServiceAccountToken: tag(21, bool()),
      nodeName: tag(10, str({ description: "Node the pod is bound to." })),
      hostNetwork: tag(11, bool()),
      hostPID: tag(12, bool()),
      hostIPC: tag(13, bool()),
      shareProcessNamespace: tag(27, bool()),
      securityContext: tag(14, { ...podSecurityContext, default: {} }),
      imagePullSecrets: tag(15, list(localObjectReference, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name" })),
      hostname: tag(16, str()),
      subdomain: tag(17, str()),
      affinity: tag(18, affinity),
      schedulerName: tag(19, str({ default: "default-scheduler", description: "Scheduler that places the pod." })),
      tolerations: tag(22, list(toleration, { listType: "atomic" })),
      hostAliases: tag(23, list(hostAlias, { listType: "map", mapKeys: ["ip"], patchStrategy: "merge", patchMergeKey: "ip" })),
      priorityClassName: tag(24, str()),
      priority: tag(25, int32()),
      dnsConfig: tag(26, podDNSConfig),
      readinessGates: tag(28, list(C("PodReadinessGate", obj({ conditionType: tag(1, str()) }, { required: ["conditionType"] })), { listType: "atomic" })),
      runtimeClassName: tag(29, str()),
      enableServiceLinks: tag(30, bool({ description: "Inject service environment variables (defaults to true on pods)." })),
      preemptionPolicy: tag(31, enumOf(["PreemptLowerPriority", "Never"])),
      overhead: tag(32, resourceList("Resource overhead of the runtime class.")),
      topologySpreadConstraints: tag(
        33,
        list(topologySpreadConstraint, { listType: "map", mapKeys: ["topologyKey", "whenUnsatisfiable"], patchStrategy: "merge", patchMergeKey: "topologyKey" }),
      ),
      setHostnameAsFQDN: tag(35, bool()),
      os: tag(36, C("PodOS", obj({ name: tag(1, str({ description: "linux or windows." })) }, { required: ["name"] }))),
      hostUsers: tag(37, bool()),
      schedulingGates: tag(38, list(C("PodSchedulingGate", obj({ name: tag(1, str()) }, { required: ["name"] })), { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name" })),
      resourceClaims: tag(39, list(podResourceClaim, { listType: "map", mapKeys: ["name"], patchStrategy: "merge,retainKeys", patchMergeKey: "name" })),
      resources: tag(40, resourceRequirements),
      hostnameOverride: tag(41, str({ maxLength: 64 })),
      workloadRef: tag(
        42,
        C("WorkloadReference", obj({ name: tag(1, str()), podGroup: tag(2, str()), podGroupReplicaKey: tag(3, str()) }, { required: ["name", "podGroup"] })),
      ),
    },
    { required: ["containers"], description: "Desired state of a pod." },
  ),
);

// ---- status ----

export const POD_PHASES = ["Pending", "Running", "Succeeded", "Failed", "Unknown"];

export const podCondition = C(
  "PodCondition",
  obj(
    {
      type: tag(1, str({ description: "PodScheduled, Initialized, ContainersReady, Ready, or a readiness gate." })),
      observedGeneration: tag(7, int64()),
      status: tag(2, conditionStatus()),
      lastProbeTime: tag(3, time()),
      lastTransitionTime: tag(4, time()),
      reason: tag(5, str()),
      message: tag(6, str()),
    },
    { required: ["type", "status"], description: "A pod condition." },
  ),
);

const ipEntry = (name: string) => C(name, obj({ ip: tag(1, format("ip")) }, { required: ["ip"] }));

export const podStatus = C(
  "PodStatus",
  obj(
    {
      observedGeneration: tag(17, int64()),
      phase: tag(1, enumOf(POD_PHASES, { description: "Lifecycle phase." })),
      conditions: tag(2, list(podCondition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" })),
      message: tag(3, str()),
      reason: tag(4, str()),
      nominatedNodeName: tag(11, str()),
      hostIP: tag(5, str()),
      hostIPs: tag(16, list(ipEntry("HostIP"), { listType: "atomic", patchStrategy: "merge", patchMergeKey: "ip" })),
      podIP: tag(6, str()),
      podIPs: tag(12, list(ipEntry("PodIP"), { listType: "map", mapKeys: ["ip"], patchStrategy: "merge", patchMergeKey: "ip" })),
      startTime: tag(7, time()),
      initContainerStatuses: tag(10, list(containerStatus, { listType: "atomic" })),
      containerStatuses: tag(8, list(containerStatus, { listType: "atomic" })),
      qosClass: tag(9, enumOf(["Guaranteed", "Burstable", "BestEffort"])),
      ephemeralContainerStatuses: tag(13, list(containerStatus, { listType: "atomic" })),
      resize: tag(14, enumOf(["Proposed", "InProgress", "Deferred", "Infeasible"])),
      resourceClaimStatuses: tag(
        15,
        list(C("PodResourceClaimStatus", obj({ name: tag(1, str()), resourceClaimName: tag(2, str()) }, { required: ["name"] })), {
          listType: "map",
          mapKeys: ["name"],
          patchStrategy: "merge,retainKeys",
          patchMergeKey: "name",
        }),
      ),
      extendedResourceClaimStatus: tag(
        18,
        C(
          "PodExtendedResourceClaimStatus",
          obj(
            {
              requestMappings: tag(
                1,
                list(
                  C(
                    "ContainerExtendedResourceRequest",
                    obj({ containerName: tag(1, str()), resourceName: tag(2, str()), requestName: tag(3, str()) }, { required: ["containerName", "resourceName", "requestName"] }),
                  ),
                  { listType: "atomic" },
                ),
              ),
              resourceClaimName: tag(2, str()),
            },
            { required: ["requestMappings", "resourceClaimName"] },
          ),
        ),
      ),
      allocatedResources: tag(19, resourceList("Pod-level requests allocated by the node.")),
      resources: tag(20, resourceRequirements),
    },
    { description: "Observed state of a pod." },
  ),
);

export const podTemplateSpec = C(
  "PodTemplateSpec",
  obj({ metadata: tag(1, objectMeta), spec: tag(2, podSpec) }, { description: "Template of pods created by a controller." }),
);

// ---- defaulting ----

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function objList(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** The tag of an image reference (`""` for a digest-only reference; `latest` when absent). */
export function imageTag(image: string): string {
  let ref = image;
  const at = ref.indexOf("@");
  const hasDigest = at >= 0;
  if (hasDigest) ref = ref.slice(0, at);
  const slash = ref.lastIndexOf("/");
  const colon = ref.lastIndexOf(":");
  if (colon > slash) return ref.slice(colon + 1);
  return hasDigest ? "" : "latest";
}

/** Pull policy default from the image: Always for `:latest` or no tag, else IfNotPresent. */
export function defaultPullPolicy(image: unknown): string {
  return typeof image === "string" && image !== "" && imageTag(image) === "latest" ? "Always" : "IfNotPresent";
}

function defaultContainer(c: Obj, hostNetwork: boolean): void {
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === "") c.imagePullPolicy = defaultPullPolicy(c.image);
  if (hostNetwork) {
    for (const p of objList(c.ports)) if (p.hostPort === undefined || p.hostPort === 0) p.hostPort = p.containerPort;
  }
}

/**
 * Defaults of a pod spec that its schema cannot express (image pull policy
 * by tag, host ports under host networking, implied emptyDir volumes, image
 * volume pull policy). Runs after schema defaults; mutates; idempotent.
 * Used for pods and for pod templates of every workload kind.
 */
export function defaultPodSpec(spec: unknown): void {
  if (!isObj(spec)) return;
  const hostNetwork = spec.hostNetwork === true;
  for (const c of objList(spec.containers)) defaultContainer(c, hostNetwork);
  for (const c of objList(spec.initContainers)) defaultContainer(c, hostNetwork);
  for (const c of objList(spec.ephemeralContainers)) defaultContainer(c, false);
  for (const v of objList(spec.volumes)) {
    if (Object.keys(v).every((k) => k === "name")) v.emptyDir = {};
    if (isObj(v.image) && (v.image.pullPolicy === undefined || v.image.pullPolicy === "")) v.image.pullPolicy = defaultPullPolicy(v.image.reference);
  }
}

/** Pod template defaulting for workload kinds: `template.spec` of the given template, if present. */
export function defaultPodTemplate(template: unknown): void {
  if (isObj(template)) defaultPodSpec(template.spec);
}

/**
 * Defaults only pods get (not templates): service links on, and container
 * requests filled from limits for resources that have a limit but no request.
 */
export function defaultPod(obj: Obj): void {
  const spec = obj.spec;
  if (!isObj(spec)) return;
  defaultPodSpec(spec);
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  for (const c of [...objList(spec.containers), ...objList(spec.initContainers)]) requestsFromLimits(c.resources, () => true);
  // Pod-level resources: only cpu, memory and huge pages are supported there.
  requestsFromLimits(spec.resources, (k) => k === "cpu" || k === "memory" || k.startsWith("hugepages-"));
}

function requestsFromLimits(r: unknown, supported: (resource: string) => boolean): void {
  if (!isObj(r) || !isObj(r.limits)) return;
  const requests = isObj(r.requests) ? r.requests : {};
  for (const [k, v] of Object.entries(r.limits)) if (supported(k) && !(k in requests)) requests[k] = v;
  if (Object.keys(requests).length > 0) r.requests = requests;
}

/** Volume source fields in the order the platform checks them. */
const VOLUME_SOURCES = [
  "hostPath",
  "emptyDir",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "persistentVolumeClaim",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "downwardAPI",
  "fc",
  "azureFile",
  "configMap",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "projected",
  "storageos",
  "csi",
  "ephemeral",
  "image",
];

/**
 * Rules of a pod spec the schema cannot express, for pods and every pod
 * template: at least one container; an image for every container; container
 * names unique across containers, init and ephemeral containers; exactly one
 * source per volume; mounts and devices naming existing volumes; liveness
 * and startup probes with a success threshold of 1.
 * `base` is the spec's path (`spec`, `spec.template.spec`).
 */
export function validatePodSpecRules(spec: unknown, base: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObj(spec)) return errs;
  const volumes = new Set<string>();
  (Array.isArray(spec.volumes) ? spec.volumes : []).forEach((v, i) => {
    if (!isObj(v)) return;
    if (typeof v.name === "string") volumes.add(v.name);
    const sources = VOLUME_SOURCES.filter((k) => v[k] !== undefined && v[k] !== null);
    if (sources.length === 0) errs.push(fieldErrors.required(`${base}.volumes[${i}]`, "must specify a volume type"));
    for (const extra of sources.slice(1)) errs.push(fieldErrors.forbidden(`${base}.volumes[${i}].${extra}`, "may not specify more than 1 volume type"));
  });
  // A value of the wrong type is the schema's error, not reported twice.
  if (spec.containers === undefined || (Array.isArray(spec.containers) && spec.containers.length === 0)) errs.push(fieldErrors.required(`${base}.containers`));
  const seen = new Set<string>();
  for (const field of ["initContainers", "containers", "ephemeralContainers"]) {
    const items = Array.isArray(spec[field]) ? (spec[field] as unknown[]) : [];
    items.forEach((c, i) => {
      if (!isObj(c)) return;
      const p = `${base}.${field}[${i}]`;
      if (typeof c.image !== "string" || c.image.trim() === "") errs.push(fieldErrors.required(`${p}.image`));
      const name = typeof c.name === "string" ? c.name : "";
      if (name !== "" && seen.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      seen.add(name);
      for (const list of ["volumeMounts", "volumeDevices"]) {
        objList(c[list]).forEach((m, j) => {
          if (typeof m.name === "string" && !volumes.has(m.name)) errs.push(fieldErrors.notFound(`${p}.${list}[${j}].name`, m.name));
        });
      }
      for (const probe of ["livenessProbe", "startupProbe"]) {
        const pr = c[probe];
        if (isObj(pr) && typeof pr.successThreshold === "number" && pr.successThreshold !== 1) {
          errs.push(fieldErrors.invalid(`${p}.${probe}.successThreshold`, pr.successThreshold, "must be 1"));
        }
      }
    });
  }
  return errs;
}

/** PodSpec with the fields a pod update may not change marked immutable (pods only, not templates). */
export function immutablePodSpec(spec: Schema): Schema {
  const props = { ...(spec.properties ?? {}) };
  const mutable = new Set(["containers", "initContainers", "activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds", "schedulingGates"]);
  for (const [k, v] of Object.entries(props)) if (!mutable.has(k)) props[k] = { ...v, immutable: true };
  // Container fields other than the image change only through the resize and ephemeralcontainers subresources.
  for (const k of ["containers", "initContainers"]) {
    const l = props[k];
    const item = l.items;
    if (!item?.properties) continue;
    const itemProps: Record<string, Schema> = {};
    for (const [f, s] of Object.entries(item.properties)) itemProps[f] = f === "image" ? s : { ...s, immutable: true };
    props[k] = { ...l, items: { ...item, properties: itemProps } };
  }
  return { ...spec, properties: props };
}

// ---- quality of service ----

/** A quantity in nano-units, rounded up (`100m` → 100000000n); undefined when unparsable. */
export function quantityNanos(q: unknown): bigint | undefined {
  const text = typeof q === "number" ? String(q) : q;
  if (typeof text !== "string") return undefined;
  const p = parseQuantity(text);
  if ("error" in p) return undefined;
  const [whole, frac = ""] = p.number.split(".");
  let n = BigInt(`${whole || "0"}${frac}` || "0");
  let tenPow = 9 - frac.length;
  if (p.base === 2) n *= 2n ** BigInt(p.exponent);
  else tenPow += p.exponent;
  const v = tenPow >= 0 ? n * 10n ** BigInt(tenPow) : (n + 10n ** BigInt(-tenPow) - 1n) / 10n ** BigInt(-tenPow);
  return p.negative ? -v : v;
}

const QOS_RESOURCES = new Set(["cpu", "memory"]);

function sumPositive(into: Map<string, bigint>, list: unknown): Set<string> {
  const found = new Set<string>();
  if (!isObj(list)) return found;
  for (const [name, q] of Object.entries(list)) {
    if (!QOS_RESOURCES.has(name)) continue;
    const v = quantityNanos(q);
    if (v === undefined || v <= 0n) continue;
    found.add(name);
    into.set(name, (into.get(name) ?? 0n) + v);
  }
  return found;
}

/**
 * The pod's QoS class as the platform computes it: BestEffort without cpu or
 * memory requests and limits; Guaranteed when every container (or the pod
 * level, when pod-level resources are set) limits both cpu and memory and
 * requests equal limits; Burstable otherwise.
 */
export function podQOSClass(pod: unknown): "Guaranteed" | "Burstable" | "BestEffort" {
  const spec = isObj(pod) && isObj(pod.spec) ? pod.spec : {};
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const podLevel = isObj(spec.resources) && (isObj(spec.resources.requests) || isObj(spec.resources.limits)) ? spec.resources : undefined;
  const sources = podLevel ? [podLevel] : [...objList(spec.containers), ...objList(spec.initContainers)].map((c) => c.resources);
  for (const r of sources) {
    const res = isObj(r) ? r : {};
    sumPositive(requests, res.requests);
    const limited = sumPositive(limits, res.limits);
    if (!limited.has("cpu") || !limited.has("memory")) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [name, req] of requests) if (limits.get(name) !== req) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}

/** The status a pod starts with on create (after defaulting): Pending, with its QoS class. */
export function initialPodStatus(pod: unknown): Record<string, unknown> {
  return { phase: "Pending", qosClass: podQOSClass(pod) };
}
