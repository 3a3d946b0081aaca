/**
 * Typed clients for the common built-in kinds, written by hand over the ObjectClient:
 * each kind has its object type (the fields programs use most, the rest still there
 * as unknown) and a client whose verbs take and return that type, with `apiVersion`
 * and `kind` filled in on writes and the group named through the profile.
 *   const c = typedClients(objectClient, profile);
 *   const cm = await c.configMaps.create({ metadata: { name: "a", namespace: "default" }, data: { k: "v" } });
 * Namespaced kinds take the namespace from the object or the options; a list of a
 * namespaced kind without one lists every namespace.
 */
import type { Status } from "../api/status.ts";
import type { GroupKey, PlatformProfile } from "../platform/index.ts";
import type { ApiObject, DeleteOptions, ListOptions, ObjectClient, ObjectMeta, PatchType, ResourceRef, SelectorOptions, WatchOptions, WatchStream, WriteOptions } from "./object-client.ts";

/** An object of a kind: its metadata plus `T`'s fields; `apiVersion` and `kind` are optional on input. */
export type Typed<T> = { apiVersion?: string; kind?: string; metadata: ObjectMeta } & T & { [field: string]: unknown };

export interface TypedList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: Array<Typed<T>>;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string }>;
  ports?: Array<{ containerPort: number; name?: string; protocol?: string }>;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  nodeName?: string;
  serviceAccountName?: string;
  restartPolicy?: string;
}

export interface ConfigMapFields {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}
export interface SecretFields {
  type?: string;
  /** base64 values. */
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}
export interface PodFields {
  spec?: PodSpec;
  status?: { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }> };
}
export interface NamespaceFields {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}
export interface ServiceFields {
  spec?: { type?: string; selector?: Record<string, string>; ports?: Array<{ name?: string; port: number; targetPort?: number | string; protocol?: string }>; clusterIP?: string };
}
export interface DeploymentFields {
  spec?: { replicas?: number; selector: LabelSelector; template: { metadata?: ObjectMeta; spec: PodSpec }; strategy?: { type?: string } };
  status?: { replicas?: number; readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number; observedGeneration?: number };
}
export interface ServiceAccountFields {
  automountServiceAccountToken?: boolean;
  secrets?: Array<{ name?: string }>;
}
export interface JobFields {
  spec?: { template: { metadata?: ObjectMeta; spec: PodSpec }; completions?: number; parallelism?: number; backoffLimit?: number };
  status?: { succeeded?: number; failed?: number; active?: number };
}

export type ConfigMap = Typed<ConfigMapFields>;
export type Secret = Typed<SecretFields>;
export type Pod = Typed<PodFields>;
export type Namespace = Typed<NamespaceFields>;
export type Service = Typed<ServiceFields>;
export type Deployment = Typed<DeploymentFields>;
export type ServiceAccount = Typed<ServiceAccountFields>;
export type Job = Typed<JobFields>;

/** What identifies a kind on the wire. */
export interface KindRef {
  group: GroupKey;
  version: string;
  kind: string;
  resource: string;
}

export class TypedClient<T> {
  readonly ref: ResourceRef;
  readonly apiVersion: string;

  constructor(
    private readonly client: ObjectClient,
    profile: PlatformProfile,
    readonly kindRef: KindRef,
  ) {
    this.ref = { group: profile.group(kindRef.group), version: kindRef.version, resource: kindRef.resource };
    this.apiVersion = profile.apiVersion(kindRef.group, kindRef.version);
  }

  private typed(obj: Typed<T>): ApiObject {
    return { ...obj, apiVersion: this.apiVersion, kind: this.kindRef.kind } as ApiObject;
  }

  async get(name: string, namespace?: string): Promise<Typed<T>> {
    return (await this.client.get(this.ref, name, { namespace })) as Typed<T>;
  }

  async list(opts: ListOptions = {}): Promise<TypedList<T>> {
    return (await this.client.list(this.ref, opts)) as unknown as TypedList<T>;
  }

  watch(opts: WatchOptions = {}): WatchStream {
    return this.client.watch(this.ref, opts);
  }

  async create(obj: Typed<T>, opts: WriteOptions = {}): Promise<Typed<T>> {
    return (await this.client.create(this.ref, this.typed(obj), opts)) as Typed<T>;
  }

  async update(obj: Typed<T>, opts: WriteOptions = {}): Promise<Typed<T>> {
    return (await this.client.update(this.ref, this.typed(obj), { namespace: obj.metadata.namespace, ...opts })) as Typed<T>;
  }

  async updateStatus(obj: Typed<T>, opts: WriteOptions = {}): Promise<Typed<T>> {
    return this.update(obj, { ...opts, subresource: "status" });
  }

  async patch(name: string, type: PatchType, patch: unknown, opts: WriteOptions = {}): Promise<Typed<T>> {
    return (await this.client.patch(this.ref, name, type, patch, opts)) as Typed<T>;
  }

  delete(name: string, opts: DeleteOptions = {}): Promise<ApiObject | Status> {
    return this.client.delete(this.ref, name, opts);
  }

  deleteCollection(opts: DeleteOptions & SelectorOptions = {}): Promise<unknown> {
    return this.client.deleteCollection(this.ref, opts);
  }
}

export const KINDS = {
  configMaps: { group: "core", version: "v1", kind: "ConfigMap", resource: "configmaps" },
  secrets: { group: "core", version: "v1", kind: "Secret", resource: "secrets" },
  pods: { group: "core", version: "v1", kind: "Pod", resource: "pods" },
  namespaces: { group: "core", version: "v1", kind: "Namespace", resource: "namespaces" },
  services: { group: "core", version: "v1", kind: "Service", resource: "services" },
  serviceAccounts: { group: "core", version: "v1", kind: "ServiceAccount", resource: "serviceaccounts" },
  deployments: { group: "apps", version: "v1", kind: "Deployment", resource: "deployments" },
  jobs: { group: "batch", version: "v1", kind: "Job", resource: "jobs" },
} as const satisfies Record<string, KindRef>;

export interface TypedClients {
  configMaps: TypedClient<ConfigMapFields>;
  secrets: TypedClient<SecretFields>;
  pods: TypedClient<PodFields>;
  namespaces: TypedClient<NamespaceFields>;
  services: TypedClient<ServiceFields>;
  serviceAccounts: TypedClient<ServiceAccountFields>;
  deployments: TypedClient<DeploymentFields>;
  jobs: TypedClient<JobFields>;
}

/** The typed clients of the common kinds over one object client. */
export function typedClients(client: ObjectClient, profile: PlatformProfile): TypedClients {
  return {
    configMaps: new TypedClient<ConfigMapFields>(client, profile, KINDS.configMaps),
    secrets: new TypedClient<SecretFields>(client, profile, KINDS.secrets),
    pods: new TypedClient<PodFields>(client, profile, KINDS.pods),
    namespaces: new TypedClient<NamespaceFields>(client, profile, KINDS.namespaces),
    services: new TypedClient<ServiceFields>(client, profile, KINDS.services),
    serviceAccounts: new TypedClient<ServiceAccountFields>(client, profile, KINDS.serviceAccounts),
    deployments: new TypedClient<DeploymentFields>(client, profile, KINDS.deployments),
    jobs: new TypedClient<JobFields>(client, profile, KINDS.jobs),
  };
}
