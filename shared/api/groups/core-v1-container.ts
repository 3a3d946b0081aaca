/**
 * core/v1 container types: Container, EphemeralContainer, ports, environment,
 * probes, lifecycle hooks, security contexts, and the container status types.
 */
import { bool, enumOf, format, int32, int64, intOrString, list, obj, str, tag } from "../../schema/build.ts";
import type { Schema } from "../../schema/types.ts";
import {
  C,
  IMAGE_PULL_POLICIES,
  SIGNALS,
  inlineLocalName,
  inlined,
  objectFieldSelector,
  protocol,
  resourceFieldSelector,
  resourceRequirements,
} from "./core-v1-common.ts";

export const containerPort = C(
  "ContainerPort",
  obj(
    {
      name: tag(1, str({ maxLength: 15, description: "IANA service name of the port, unique in the pod." })),
      hostPort: tag(2, int32({ minimum: 0, maximum: 65535, description: "Port exposed on the host." })),
      containerPort: tag(3, int32({ minimum: 1, maximum: 65535, description: "Port on the pod's IP address." })),
      protocol: tag(4, protocol({ default: "TCP" })),
      hostIP: tag(5, str({ description: "Host IP to bind the host port to." })),
    },
    { required: ["containerPort"], description: "A network port of a container." },
  ),
);

export const configMapKeySelector = C(
  "ConfigMapKeySelector",
  obj(
    {
      name: inlineLocalName(),
      key: tag(2, str({ description: "Key to select." })),
      optional: tag(3, bool({ description: "Whether the ConfigMap or key may be missing." })),
    },
    { required: ["key"], mapType: "atomic", description: "Selects a key of a ConfigMap." },
  ),
);

export const secretKeySelector = C(
  "SecretKeySelector",
  obj(
    {
      name: inlineLocalName(),
      key: tag(2, str({ description: "Key to select." })),
      optional: tag(3, bool({ description: "Whether the Secret or key may be missing." })),
    },
    { required: ["key"], mapType: "atomic", description: "Selects a key of a Secret." },
  ),
);

export const fileKeySelector = C(
  "FileKeySelector",
  obj(
    {
      volumeName: tag(1, str({ description: "Volume holding the env file." })),
      path: tag(2, str({ description: "Relative path of the env file in the volume." })),
      key: tag(3, str({ description: "Key within the env file." })),
      optional: tag(4, bool({ default: false, description: "Whether the file or key may be missing." })),
    },
    { required: ["volumeName", "path", "key"], mapType: "atomic", description: "Selects a key of an env file." },
  ),
);

export const envVarSource = C(
  "EnvVarSource",
  obj(
    {
      fieldRef: tag(1, objectFieldSelector),
      resourceFieldRef: tag(2, resourceFieldSelector),
      configMapKeyRef: tag(3, configMapKeySelector),
      secretKeyRef: tag(4, secretKeySelector),
      fileKeyRef: tag(5, fileKeySelector),
    },
    { description: "Source of an environment variable's value." },
  ),
);

export const envVar = C(
  "EnvVar",
  obj(
    {
      name: tag(1, str({ minLength: 1, description: "Variable name." })),
      value: tag(2, str({ description: "Value; `$(VAR)` references are expanded." })),
      valueFrom: tag(3, envVarSource),
    },
    { required: ["name"], description: "An environment variable." },
  ),
);

export const configMapEnvSource = C(
  "ConfigMapEnvSource",
  obj({ name: inlineLocalName(), optional: tag(2, bool({ description: "Whether the ConfigMap may be missing." })) }, { description: "ConfigMap whose keys become environment variables." }),
);

export const secretEnvSource = C(
  "SecretEnvSource",
  obj({ name: inlineLocalName(), optional: tag(2, bool({ description: "Whether the Secret may be missing." })) }, { description: "Secret whose keys become environment variables." }),
);

export const envFromSource = C(
  "EnvFromSource",
  obj(
    {
      prefix: tag(1, str({ description: "Prefix prepended to every variable name." })),
      configMapRef: tag(2, configMapEnvSource),
      secretRef: tag(3, secretEnvSource),
    },
    { description: "A set of environment variables from a ConfigMap or Secret." },
  ),
);

export const volumeMount = C(
  "VolumeMount",
  obj(
    {
      name: tag(1, str({ description: "Name of a pod volume." })),
      readOnly: tag(2, bool({ description: "Mount read-only." })),
      recursiveReadOnly: tag(7, enumOf(["Disabled", "IfPossible", "Enabled"], { description: "Whether read-only applies recursively." })),
      mountPath: tag(3, str({ description: "Path in the container." })),
      subPath: tag(4, str({ description: "Path within the volume to mount." })),
      mountPropagation: tag(5, enumOf(["None", "HostToContainer", "Bidirectional"], { description: "Mount propagation mode." })),
      subPathExpr: tag(6, str({ description: "Like subPath, with `$(VAR)` expansion." })),
    },
    { required: ["name", "mountPath"], description: "Mounts a volume into a container." },
  ),
);

export const volumeDevice = C(
  "VolumeDevice",
  obj(
    {
      name: tag(1, str({ description: "Name of a persistentVolumeClaim volume of the pod." })),
      devicePath: tag(2, str({ description: "Device path in the container." })),
    },
    { required: ["name", "devicePath"], description: "A raw block device mapped into a container." },
  ),
);

export const execAction = C(
  "ExecAction",
  obj({ command: tag(1, list(str(), { listType: "atomic", description: "Command line, not run in a shell." })) }, { description: "Runs a command in the container." }),
);

export const httpHeader = C(
  "HTTPHeader",
  obj({ name: tag(1, str({ description: "Header name." })), value: tag(2, str({ description: "Header value." })) }, { required: ["name", "value"], description: "An HTTP header." }),
);

export const httpGetAction = C(
  "HTTPGetAction",
  obj(
    {
      path: tag(1, str({ default: "/", description: "Request path." })),
      port: tag(2, intOrString({ description: "Port number or name." })),
      host: tag(3, str({ description: "Host to connect to; the pod IP by default." })),
      scheme: tag(4, enumOf(["HTTP", "HTTPS"], { default: "HTTP", description: "Scheme." })),
      httpHeaders: tag(5, list(httpHeader, { listType: "atomic", description: "Extra request headers." })),
    },
    { required: ["port"], description: "An HTTP GET check." },
  ),
);

export const tcpSocketAction = C(
  "TCPSocketAction",
  obj(
    {
      port: tag(1, intOrString({ description: "Port number or name." })),
      host: tag(2, str({ description: "Host to connect to; the pod IP by default." })),
    },
    { required: ["port"], description: "A TCP connect check." },
  ),
);

export const grpcAction = C(
  "GRPCAction",
  obj(
    {
      port: tag(1, int32({ minimum: 1, maximum: 65535, description: "Port of the gRPC service." })),
      service: tag(2, str({ default: "", description: "Service name sent in the health check request." })),
    },
    { required: ["port"], description: "A gRPC health check." },
  ),
);

export const sleepAction = C("SleepAction", obj({ seconds: tag(1, int64({ description: "Seconds to sleep." })) }, { required: ["seconds"], description: "Sleeps for a while." }));

/** The fields of `ProbeHandler`, inlined in `Probe`. */
export const probeHandlerFields: Record<string, Schema> = {
  exec: tag(1, execAction),
  httpGet: tag(2, httpGetAction),
  tcpSocket: tag(3, tcpSocketAction),
  grpc: tag(4, grpcAction),
};

export const probe = C(
  "Probe",
  obj(
    {
      ...inlined(probeHandlerFields),
      initialDelaySeconds: tag(2, int32({ minimum: 0, description: "Delay after start before the first probe." })),
      timeoutSeconds: tag(3, int32({ default: 1, minimum: 1, description: "Probe timeout." })),
      periodSeconds: tag(4, int32({ default: 10, minimum: 1, description: "Probe interval." })),
      successThreshold: tag(5, int32({ default: 1, minimum: 1, description: "Successes needed after a failure." })),
      failureThreshold: tag(6, int32({ default: 3, minimum: 1, description: "Failures needed to give up." })),
      terminationGracePeriodSeconds: tag(7, int64({ minimum: 1, description: "Grace period on probe failure." })),
    },
    { description: "A health check of a container." },
  ),
);

export const lifecycleHandler = C(
  "LifecycleHandler",
  obj(
    {
      exec: tag(1, execAction),
      httpGet: tag(2, httpGetAction),
      tcpSocket: tag(3, tcpSocketAction),
      sleep: tag(4, sleepAction),
    },
    { description: "Action of a lifecycle hook." },
  ),
);

export const lifecycle = C(
  "Lifecycle",
  obj(
    {
      postStart: tag(1, lifecycleHandler),
      preStop: tag(2, lifecycleHandler),
      stopSignal: tag(3, enumOf(SIGNALS, { description: "Signal sent to stop the container; the runtime's default when unset." })),
    },
    { description: "Container lifecycle hooks." },
  ),
);

export const capabilities = C(
  "Capabilities",
  obj(
    {
      add: tag(1, list(str(), { listType: "atomic", description: "Capabilities to add." })),
      drop: tag(2, list(str(), { listType: "atomic", description: "Capabilities to drop." })),
    },
    { description: "POSIX capabilities." },
  ),
);

export const seLinuxOptions = C(
  "SELinuxOptions",
  obj(
    { user: tag(1, str()), role: tag(2, str()), type: tag(3, str()), level: tag(4, str()) },
    { description: "SELinux labels." },
  ),
);

export const windowsSecurityContextOptions = C(
  "WindowsSecurityContextOptions",
  obj(
    {
      gmsaCredentialSpecName: tag(1, str({ description: "GMSA credential spec name." })),
      gmsaCredentialSpec: tag(2, str({ description: "GMSA credential spec contents." })),
      runAsUserName: tag(3, str({ description: "Windows user name." })),
      hostProcess: tag(4, bool({ description: "Run as a host process container." })),
    },
    { description: "Windows-specific security options." },
  ),
);

const PROFILE_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"];

export const seccompProfile = C(
  "SeccompProfile",
  obj(
    {
      type: tag(1, enumOf(PROFILE_TYPES, { description: "Kind of seccomp profile." })),
      localhostProfile: tag(2, str({ description: "Profile file on the node (type Localhost)." })),
    },
    { required: ["type"], description: "Seccomp profile settings." },
  ),
);

export const appArmorProfile = C(
  "AppArmorProfile",
  obj(
    {
      type: tag(1, enumOf(PROFILE_TYPES, { description: "Kind of AppArmor profile." })),
      localhostProfile: tag(2, str({ description: "Profile loaded on the node (type Localhost)." })),
    },
    { required: ["type"], description: "AppArmor profile settings." },
  ),
);

export const ulimit = C(
  "Ulimit",
  obj(
    { name: tag(1, str({ description: "Ulimit name (nofile, memlock...)." })), hard: tag(2, int64()), soft: tag(3, int64()) },
    { required: ["name", "hard", "soft"], description: "A Linux ulimit." },
  ),
);

export const securityContext = C(
  "SecurityContext",
  obj(
    {
      capabilities: tag(1, capabilities),
      privileged: tag(2, bool({ description: "Run privileged." })),
      seLinuxOptions: tag(3, seLinuxOptions),
      windowsOptions: tag(10, windowsSecurityContextOptions),
      runAsUser: tag(4, int64({ description: "UID of the entrypoint process." })),
      runAsGroup: tag(8, int64({ description: "GID of the entrypoint process." })),
      runAsNonRoot: tag(5, bool({ description: "Refuse to run as UID 0." })),
      readOnlyRootFilesystem: tag(6, bool({ description: "Read-only root filesystem." })),
      allowPrivilegeEscalation: tag(7, bool({ description: "Allow gaining more privileges than the parent (no_new_privs)." })),
      procMount: tag(9, enumOf(["Default", "Unmasked"], { description: "Proc mount type." })),
      seccompProfile: tag(11, seccompProfile),
      appArmorProfile: tag(12, appArmorProfile),
      ulimits: tag(13, list(ulimit, { listType: "map", mapKeys: ["name"], description: "Ulimits of the container." })),
    },
    { description: "Container security settings." },
  ),
);

export const containerResizePolicy = C(
  "ContainerResizePolicy",
  obj(
    {
      resourceName: tag(1, str({ description: "Resource name (cpu, memory)." })),
      restartPolicy: tag(2, enumOf(["NotRequired", "RestartContainer"], { description: "Whether a resize restarts the container." })),
    },
    { required: ["resourceName", "restartPolicy"], description: "Resize policy for one resource." },
  ),
);

export const containerRestartRuleOnExitCodes = C(
  "ContainerRestartRuleOnExitCodes",
  obj(
    {
      operator: tag(1, enumOf(["In", "NotIn"], { description: "Relation between the exit code and the values." })),
      values: tag(2, list(int32(), { listType: "set", maxItems: 255, description: "Exit codes." })),
    },
    { required: ["operator"], description: "Exit code condition of a restart rule." },
  ),
);

export const containerRestartRule = C(
  "ContainerRestartRule",
  obj(
    {
      action: tag(1, enumOf(["Restart"], { description: "Action on a matching exit." })),
      exitCodes: tag(2, containerRestartRuleOnExitCodes),
    },
    { required: ["action"], description: "How a container exit is handled." },
  ),
);

const CONTAINER_RESTART_POLICIES = ["Always", "OnFailure", "Never"];

/** Every field of `Container` (shared with `EphemeralContainerCommon`). */
export const containerFields: Record<string, Schema> = {
  name: tag(1, format("dns1123-label", { description: "Container name, unique in the pod." })),
  image: tag(2, str({ description: "Container image reference." })),
  command: tag(3, list(str(), { listType: "atomic", description: "Entrypoint; the image's ENTRYPOINT when unset." })),
  args: tag(4, list(str(), { listType: "atomic", description: "Arguments; the image's CMD when unset." })),
  workingDir: tag(5, str({ description: "Working directory." })),
  ports: tag(
    6,
    list(containerPort, {
      listType: "map",
      mapKeys: ["containerPort", "protocol"],
      patchStrategy: "merge",
      patchMergeKey: "containerPort",
      description: "Ports the container exposes.",
    }),
  ),
  envFrom: tag(19, list(envFromSource, { listType: "atomic", description: "Sources of environment variables." })),
  env: tag(7, list(envVar, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "Environment variables." })),
  resources: tag(8, resourceRequirements),
  resizePolicy: tag(23, list(containerResizePolicy, { listType: "atomic", description: "Resize policy per resource." })),
  restartPolicy: tag(24, enumOf(CONTAINER_RESTART_POLICIES, { description: "Container-level restart policy (sidecar init containers use Always)." })),
  restartPolicyRules: tag(25, list(containerRestartRule, { listType: "atomic", maxItems: 20, description: "Rules deciding restarts on exit." })),
  volumeMounts: tag(
    9,
    list(volumeMount, { listType: "map", mapKeys: ["mountPath"], patchStrategy: "merge", patchMergeKey: "mountPath", description: "Volumes mounted into the container." }),
  ),
  volumeDevices: tag(
    21,
    list(volumeDevice, { listType: "map", mapKeys: ["devicePath"], patchStrategy: "merge", patchMergeKey: "devicePath", description: "Block devices of the container." }),
  ),
  livenessProbe: tag(10, probe),
  readinessProbe: tag(11, probe),
  startupProbe: tag(22, probe),
  lifecycle: tag(12, lifecycle),
  terminationMessagePath: tag(13, str({ default: "/dev/termination-log", description: "File the termination message is read from." })),
  terminationMessagePolicy: tag(20, enumOf(["File", "FallbackToLogsOnError"], { default: "File", description: "How the termination message is filled." })),
  imagePullPolicy: tag(14, enumOf(IMAGE_PULL_POLICIES, { description: "When to pull the image; defaulted from the image tag." })),
  securityContext: tag(15, securityContext),
  stdin: tag(16, bool({ description: "Allocate a stdin buffer." })),
  stdinOnce: tag(17, bool({ description: "Close stdin after the first attach detaches." })),
  tty: tag(18, bool({ description: "Allocate a TTY." })),
};

export const container = C("Container", obj(containerFields, { required: ["name"], description: "A container of a pod." }));

export const ephemeralContainer = C(
  "EphemeralContainer",
  obj(
    {
      ...inlined(containerFields),
      targetContainerName: tag(2, str({ description: "Container whose namespaces the ephemeral container joins." })),
    },
    { required: ["name"], description: "A temporary debugging container added through the ephemeralcontainers subresource." },
  ),
);

export * from "./core-v1-container-status.ts";
