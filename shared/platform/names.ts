/**
 * The platform's names, spelled out once per profile. Every other module asks a
 * `PlatformProfile` for a name; no other file may spell a platform domain.
 *
 * Invariant: both tables have exactly the same keys (checked by the type system
 * through `ProfileNames` and by the profile tests).
 */

/** Logical API group keys used throughout the code base; the profile maps them to wire names. */
export const GROUP_KEYS = [
  "core",
  "apps",
  "batch",
  "autoscaling",
  "policy",
  "coordination",
  "events",
  "rbac",
  "networking",
  "discovery",
  "storage",
  "scheduling",
  "node",
  "certificates",
  "authentication",
  "authorization",
  "admissionregistration",
  "apiextensions",
  "apiregistration",
  "flowcontrol",
  "resource",
  "meta",
  "apiserverConfig",
  "abac",
  "clientAuthentication",
  "internalApiserver",
  "apidiscovery",
] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

export interface ProfileNames {
  /** Profile identifier as given to `--profile`. */
  readonly id: string;
  /** Human name of the platform (OpenAPI titles, server banners). */
  readonly displayName: string;
  /** Domain suffix of API groups (`rbac.authorization.<groupDomain>`). */
  readonly groupDomain: string;
  /** Wire name of every API group. */
  readonly groups: Readonly<Record<GroupKey, string>>;
  /** Prefix of OpenAPI vendor extensions, including the trailing dash. */
  readonly extensionPrefix: string;
  /** Protobuf media type. */
  readonly protobufMediaType: string;
  /** OpenAPI definition name prefixes. */
  readonly openapiApiPrefix: string;
  readonly openapiMetaPrefix: string;
  readonly openapiTitle: string;
  /** Namespaces made at start. */
  readonly systemNamespace: string;
  readonly publicNamespace: string;
  readonly nodeLeaseNamespace: string;
  /** Name of the finalizer the namespace controller owns (`spec.finalizers`). */
  readonly namespaceFinalizer: string;
  /** Name of the API service in the default namespace. */
  readonly apiServiceName: string;
  /** Value of the IPAddress managed-by label for the Service ClusterIP allocator. */
  readonly ipAllocatorName: string;
  /** The cluster installer's name, the prefix of the RBAC objects it keeps (`<installer>:bootstrap-signer-clusterinfo`). */
  readonly installerName: string;
  /** Environment variable carrying ExecCredential to client plugins. */
  readonly execInfoEnv: string;
  /** Environment variable listing client configuration files (path-list separated). */
  readonly clientConfigEnv: string;
  /** Default client configuration file, relative to the home directory. */
  readonly clientConfigHomePath: string;
  /** Environment variables of the API service a pod sees (in-cluster configuration). */
  readonly serviceHostEnv: string;
  readonly servicePortEnv: string;
  /** Well-known labels. */
  readonly labels: {
    readonly arch: string;
    readonly os: string;
    readonly hostname: string;
    readonly instanceType: string;
    readonly region: string;
    readonly zone: string;
    readonly metadataName: string;
    readonly bootstrapping: string;
    readonly aggregateToAdmin: string;
    readonly aggregateToEdit: string;
    readonly aggregateToView: string;
    readonly serviceName: string;
    readonly endpointSliceManagedBy: string;
    /** IPAddress objects: the address family and the allocator that manages them. */
    readonly ipAddressFamily: string;
    readonly ipAddressManagedBy: string;
    /** Legacy (secret-based) service account tokens: the date of last use (written by the API server) and the date the cleaner marked one invalid. */
    readonly legacyTokenLastUsed: string;
    readonly legacyTokenInvalidSince: string;
  };
  /** Well-known annotations. */
  readonly annotations: {
    readonly rbacAutoupdate: string;
    readonly deprecatedAudit: string;
    readonly initialEventsEnd: string;
    readonly serviceAccountName: string;
    readonly serviceAccountUid: string;
    readonly authorizationDecision: string;
    readonly authorizationReason: string;
    /** APF bootstrap objects: "false" stops the server from restoring a suggested object's spec. */
    readonly apfAutoupdateSpec: string;
    /** HorizontalPodAutoscaler v1 round-trip annotations (JSON of the v2-only data). */
    readonly hpaMetrics: string;
    readonly hpaCurrentMetrics: string;
    readonly hpaConditions: string;
    readonly hpaBehavior: string;
  };
  /** Well-known taints. */
  readonly taints: {
    readonly unreachable: string;
    readonly notReady: string;
    readonly unschedulable: string;
    readonly memoryPressure: string;
    readonly diskPressure: string;
    readonly pidPressure: string;
    readonly networkUnavailable: string;
  };
  /** Secret types. */
  readonly secretTypes: {
    readonly serviceAccountToken: string;
    readonly dockercfg: string;
    readonly dockerConfigJson: string;
    readonly basicAuth: string;
    readonly sshAuth: string;
    readonly tls: string;
    readonly bootstrapToken: string;
  };
  /** Service account token claims and user extras. */
  readonly serviceAccount: {
    readonly privateClaim: string;
    readonly legacyIssuer: string;
    readonly defaultAudience: string;
    readonly extraPodName: string;
    readonly extraPodUid: string;
    readonly extraNodeName: string;
    readonly extraNodeUid: string;
    readonly extraCredentialId: string;
    /** ConfigMap in the system namespace whose `since` is the date the API servers began tracking legacy token use. */
    readonly legacyTokenTrackingConfigMap: string;
  };
  /** Reserved domains that user-defined extra keys may not use. */
  readonly reservedDomains: readonly string[];
  /** Names the built-in admission plugins write or read. */
  readonly admission: {
    /** Where the ServiceAccount plugin mounts the projected API access volume. */
    readonly tokenMountPath: string;
    /** Prefix of that volume's generated name (`<prefix><5 random chars>`). */
    readonly apiAccessVolumePrefix: string;
    /** ConfigMap holding the cluster's root CA (`ca.crt`) in every namespace. */
    readonly rootCAConfigMap: string;
    /** Annotation marking a static (mirror) pod. */
    readonly mirrorPod: string;
    /** Prefix of the PodSecurity namespace labels (`<prefix>enforce`, `<prefix>warn-version`, ...). */
    readonly podSecurityLabelPrefix: string;
    /** Annotations marking the default StorageClass (current, then beta) and IngressClass. */
    readonly defaultStorageClass: string;
    readonly defaultStorageClassBeta: string;
    readonly defaultIngressClass: string;
    /** Legacy class annotations of a PersistentVolumeClaim and of an Ingress. */
    readonly pvcStorageClassBeta: string;
    readonly ingressClassAnnotation: string;
    /** Finalizers of StorageObjectInUseProtection. */
    readonly pvcProtectionFinalizer: string;
    readonly pvProtectionFinalizer: string;
    /** Pod annotation listing what LimitRanger defaulted. */
    readonly limitRanger: string;
    /** Namespace annotation of PodNodeSelector. */
    readonly nodeSelectorAnnotation: string;
    /** Prefix of the built-in certificate signer names (`<prefix>kube-apiserver-client`). */
    readonly signerPrefix: string;
  };
}

const PLAT_DOMAIN = "plat.io";

export const PLAT_NAMES: ProfileNames = {
  id: "plat",
  displayName: "Plat",
  groupDomain: PLAT_DOMAIN,
  groups: {
    core: "",
    apps: "apps",
    batch: "batch",
    autoscaling: "autoscaling",
    policy: "policy",
    coordination: "coordination.plat.io",
    events: "events.plat.io",
    rbac: "rbac.authorization.plat.io",
    networking: "networking.plat.io",
    discovery: "discovery.plat.io",
    storage: "storage.plat.io",
    scheduling: "scheduling.plat.io",
    node: "node.plat.io",
    certificates: "certificates.plat.io",
    authentication: "authentication.plat.io",
    authorization: "authorization.plat.io",
    admissionregistration: "admissionregistration.plat.io",
    apiextensions: "apiextensions.plat.io",
    apiregistration: "apiregistration.plat.io",
    flowcontrol: "flowcontrol.apiserver.plat.io",
    resource: "resource.plat.io",
    meta: "meta.plat.io",
    apiserverConfig: "apiserver.config.plat.io",
    abac: "abac.authorization.plat.io",
    clientAuthentication: "client.authentication.plat.io",
    internalApiserver: "internal.apiserver.plat.io",
    apidiscovery: "apidiscovery.plat.io",
  },
  extensionPrefix: "x-plat-",
  protobufMediaType: "application/vnd.plat.protobuf",
  openapiApiPrefix: "io.plat.api",
  openapiMetaPrefix: "io.plat.apimachinery.pkg.apis.meta",
  openapiTitle: "Plat",
  systemNamespace: "plat-system",
  publicNamespace: "plat-public",
  nodeLeaseNamespace: "plat-node-lease",
  namespaceFinalizer: "plat",
  apiServiceName: "plat",
  ipAllocatorName: "ipallocator.plat.io",
  installerName: "platadm",
  execInfoEnv: "PLAT_EXEC_INFO",
  clientConfigEnv: "PLATCONFIG",
  clientConfigHomePath: ".plat/config",
  serviceHostEnv: "PLAT_SERVICE_HOST",
  servicePortEnv: "PLAT_SERVICE_PORT",
  labels: {
    arch: "plat.io/arch",
    os: "plat.io/os",
    hostname: "plat.io/hostname",
    instanceType: "node.plat.io/instance-type",
    region: "topology.plat.io/region",
    zone: "topology.plat.io/zone",
    metadataName: "plat.io/metadata.name",
    bootstrapping: "plat.io/bootstrapping",
    aggregateToAdmin: "rbac.authorization.plat.io/aggregate-to-admin",
    aggregateToEdit: "rbac.authorization.plat.io/aggregate-to-edit",
    aggregateToView: "rbac.authorization.plat.io/aggregate-to-view",
    serviceName: "plat.io/service-name",
    endpointSliceManagedBy: "endpointslice.plat.io/managed-by",
    ipAddressFamily: "ipaddress.plat.io/ip-family",
    ipAddressManagedBy: "ipaddress.plat.io/managed-by",
    legacyTokenLastUsed: "plat.io/legacy-token-last-used",
    legacyTokenInvalidSince: "plat.io/legacy-token-invalid-since",
  },
  annotations: {
    rbacAutoupdate: "rbac.authorization.plat.io/autoupdate",
    deprecatedAudit: "plat.io/deprecated",
    initialEventsEnd: "plat.io/initial-events-end",
    serviceAccountName: "plat.io/service-account.name",
    serviceAccountUid: "plat.io/service-account.uid",
    authorizationDecision: "authorization.plat.io/decision",
    authorizationReason: "authorization.plat.io/reason",
    apfAutoupdateSpec: "apf.plat.io/autoupdate-spec",
    hpaMetrics: "autoscaling.alpha.plat.io/metrics",
    hpaCurrentMetrics: "autoscaling.alpha.plat.io/current-metrics",
    hpaConditions: "autoscaling.alpha.plat.io/conditions",
    hpaBehavior: "autoscaling.alpha.plat.io/behavior",
  },
  taints: {
    unreachable: "node.plat.io/unreachable",
    notReady: "node.plat.io/not-ready",
    unschedulable: "node.plat.io/unschedulable",
    memoryPressure: "node.plat.io/memory-pressure",
    diskPressure: "node.plat.io/disk-pressure",
    pidPressure: "node.plat.io/pid-pressure",
    networkUnavailable: "node.plat.io/network-unavailable",
  },
  secretTypes: {
    serviceAccountToken: "plat.io/service-account-token",
    dockercfg: "plat.io/dockercfg",
    dockerConfigJson: "plat.io/dockerconfigjson",
    basicAuth: "plat.io/basic-auth",
    sshAuth: "plat.io/ssh-auth",
    tls: "plat.io/tls",
    bootstrapToken: "bootstrap.plat.io/token",
  },
  serviceAccount: {
    privateClaim: "plat.io",
    legacyIssuer: "plat/serviceaccount",
    defaultAudience: "https://plat.default.svc.cluster.local",
    extraPodName: "authentication.plat.io/pod-name",
    extraPodUid: "authentication.plat.io/pod-uid",
    extraNodeName: "authentication.plat.io/node-name",
    extraNodeUid: "authentication.plat.io/node-uid",
    extraCredentialId: "authentication.plat.io/credential-id",
    legacyTokenTrackingConfigMap: "plat-apiserver-legacy-service-account-token-tracking",
  },
  reservedDomains: ["plat.io"],
  admission: {
    tokenMountPath: "/var/run/secrets/plat.io/serviceaccount",
    apiAccessVolumePrefix: "plat-api-access-",
    rootCAConfigMap: "plat-root-ca.crt",
    mirrorPod: "plat.io/config.mirror",
    podSecurityLabelPrefix: "pod-security.plat.io/",
    defaultStorageClass: "storageclass.plat.io/is-default-class",
    defaultStorageClassBeta: "storageclass.beta.plat.io/is-default-class",
    defaultIngressClass: "ingressclass.plat.io/is-default-class",
    pvcStorageClassBeta: "volume.beta.plat.io/storage-class",
    ingressClassAnnotation: "plat.io/ingress.class",
    pvcProtectionFinalizer: "plat.io/pvc-protection",
    pvProtectionFinalizer: "plat.io/pv-protection",
    limitRanger: "plat.io/limit-ranger",
    nodeSelectorAnnotation: "scheduler.alpha.plat.io/node-selector",
    signerPrefix: "plat.io/",
  },
};

/** The names the platform's public clients (kubectl, helm, client libraries) expect. */
export const KUBERNETES_NAMES: ProfileNames = {
  id: "kubernetes",
  displayName: "Kubernetes",
  groupDomain: "k8s.io",
  groups: {
    core: "",
    apps: "apps",
    batch: "batch",
    autoscaling: "autoscaling",
    policy: "policy",
    coordination: "coordination.k8s.io",
    events: "events.k8s.io",
    rbac: "rbac.authorization.k8s.io",
    networking: "networking.k8s.io",
    discovery: "discovery.k8s.io",
    storage: "storage.k8s.io",
    scheduling: "scheduling.k8s.io",
    node: "node.k8s.io",
    certificates: "certificates.k8s.io",
    authentication: "authentication.k8s.io",
    authorization: "authorization.k8s.io",
    admissionregistration: "admissionregistration.k8s.io",
    apiextensions: "apiextensions.k8s.io",
    apiregistration: "apiregistration.k8s.io",
    flowcontrol: "flowcontrol.apiserver.k8s.io",
    resource: "resource.k8s.io",
    meta: "meta.k8s.io",
    apiserverConfig: "apiserver.config.k8s.io",
    abac: "abac.authorization.kubernetes.io",
    clientAuthentication: "client.authentication.k8s.io",
    internalApiserver: "internal.apiserver.k8s.io",
    apidiscovery: "apidiscovery.k8s.io",
  },
  extensionPrefix: "x-kubernetes-",
  protobufMediaType: "application/vnd.kubernetes.protobuf",
  openapiApiPrefix: "io.k8s.api",
  openapiMetaPrefix: "io.k8s.apimachinery.pkg.apis.meta",
  openapiTitle: "Kubernetes",
  systemNamespace: "kube-system",
  publicNamespace: "kube-public",
  nodeLeaseNamespace: "kube-node-lease",
  namespaceFinalizer: "kubernetes",
  apiServiceName: "kubernetes",
  ipAllocatorName: "ipallocator.k8s.io",
  installerName: "kubeadm",
  execInfoEnv: "KUBERNETES_EXEC_INFO",
  clientConfigEnv: "KUBECONFIG",
  clientConfigHomePath: ".kube/config",
  serviceHostEnv: "KUBERNETES_SERVICE_HOST",
  servicePortEnv: "KUBERNETES_SERVICE_PORT",
  labels: {
    arch: "kubernetes.io/arch",
    os: "kubernetes.io/os",
    hostname: "kubernetes.io/hostname",
    instanceType: "node.kubernetes.io/instance-type",
    region: "topology.kubernetes.io/region",
    zone: "topology.kubernetes.io/zone",
    metadataName: "kubernetes.io/metadata.name",
    bootstrapping: "kubernetes.io/bootstrapping",
    aggregateToAdmin: "rbac.authorization.k8s.io/aggregate-to-admin",
    aggregateToEdit: "rbac.authorization.k8s.io/aggregate-to-edit",
    aggregateToView: "rbac.authorization.k8s.io/aggregate-to-view",
    serviceName: "kubernetes.io/service-name",
    endpointSliceManagedBy: "endpointslice.kubernetes.io/managed-by",
    ipAddressFamily: "ipaddress.kubernetes.io/ip-family",
    ipAddressManagedBy: "ipaddress.kubernetes.io/managed-by",
    legacyTokenLastUsed: "kubernetes.io/legacy-token-last-used",
    legacyTokenInvalidSince: "kubernetes.io/legacy-token-invalid-since",
  },
  annotations: {
    rbacAutoupdate: "rbac.authorization.kubernetes.io/autoupdate",
    deprecatedAudit: "k8s.io/deprecated",
    initialEventsEnd: "k8s.io/initial-events-end",
    serviceAccountName: "kubernetes.io/service-account.name",
    serviceAccountUid: "kubernetes.io/service-account.uid",
    authorizationDecision: "authorization.k8s.io/decision",
    authorizationReason: "authorization.k8s.io/reason",
    apfAutoupdateSpec: "apf.kubernetes.io/autoupdate-spec",
    hpaMetrics: "autoscaling.alpha.kubernetes.io/metrics",
    hpaCurrentMetrics: "autoscaling.alpha.kubernetes.io/current-metrics",
    hpaConditions: "autoscaling.alpha.kubernetes.io/conditions",
    hpaBehavior: "autoscaling.alpha.kubernetes.io/behavior",
  },
  taints: {
    unreachable: "node.kubernetes.io/unreachable",
    notReady: "node.kubernetes.io/not-ready",
    unschedulable: "node.kubernetes.io/unschedulable",
    memoryPressure: "node.kubernetes.io/memory-pressure",
    diskPressure: "node.kubernetes.io/disk-pressure",
    pidPressure: "node.kubernetes.io/pid-pressure",
    networkUnavailable: "node.kubernetes.io/network-unavailable",
  },
  secretTypes: {
    serviceAccountToken: "kubernetes.io/service-account-token",
    dockercfg: "kubernetes.io/dockercfg",
    dockerConfigJson: "kubernetes.io/dockerconfigjson",
    basicAuth: "kubernetes.io/basic-auth",
    sshAuth: "kubernetes.io/ssh-auth",
    tls: "kubernetes.io/tls",
    bootstrapToken: "bootstrap.kubernetes.io/token",
  },
  serviceAccount: {
    privateClaim: "kubernetes.io",
    legacyIssuer: "kubernetes/serviceaccount",
    defaultAudience: "https://kubernetes.default.svc.cluster.local",
    extraPodName: "authentication.kubernetes.io/pod-name",
    extraPodUid: "authentication.kubernetes.io/pod-uid",
    extraNodeName: "authentication.kubernetes.io/node-name",
    extraNodeUid: "authentication.kubernetes.io/node-uid",
    extraCredentialId: "authentication.kubernetes.io/credential-id",
    legacyTokenTrackingConfigMap: "kube-apiserver-legacy-service-account-token-tracking",
  },
  reservedDomains: ["kubernetes.io", "k8s.io"],
  admission: {
    tokenMountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
    apiAccessVolumePrefix: "kube-api-access-",
    rootCAConfigMap: "kube-root-ca.crt",
    mirrorPod: "kubernetes.io/config.mirror",
    podSecurityLabelPrefix: "pod-security.kubernetes.io/",
    defaultStorageClass: "storageclass.kubernetes.io/is-default-class",
    defaultStorageClassBeta: "storageclass.beta.kubernetes.io/is-default-class",
    defaultIngressClass: "ingressclass.kubernetes.io/is-default-class",
    pvcStorageClassBeta: "volume.beta.kubernetes.io/storage-class",
    ingressClassAnnotation: "kubernetes.io/ingress.class",
    pvcProtectionFinalizer: "kubernetes.io/pvc-protection",
    pvProtectionFinalizer: "kubernetes.io/pv-protection",
    limitRanger: "kubernetes.io/limit-ranger",
    nodeSelectorAnnotation: "scheduler.alpha.kubernetes.io/node-selector",
    signerPrefix: "kubernetes.io/",
  },
};
