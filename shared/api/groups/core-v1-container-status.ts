/**
 * core/v1 container status types (PodStatus.containerStatuses and friends).
 */
import { bool, enumOf, int32, int64, list, obj, str, tag, time } from "../../schema/build.ts";
import { C, SIGNALS, resourceList, resourceRequirements } from "./core-v1-common.ts";

export const containerStateWaiting = C(
  "ContainerStateWaiting",
  obj({ reason: tag(1, str({ description: "Why the container is not running yet." })), message: tag(2, str()) }, { description: "A waiting container." }),
);

export const containerStateRunning = C("ContainerStateRunning", obj({ startedAt: tag(1, time({ description: "Last (re)start." })) }, { description: "A running container." }));

export const containerStateTerminated = C(
  "ContainerStateTerminated",
  obj(
    {
      exitCode: tag(1, int32({ description: "Exit status." })),
      signal: tag(2, int32({ description: "Terminating signal." })),
      reason: tag(3, str()),
      message: tag(4, str()),
      startedAt: tag(5, time()),
      finishedAt: tag(6, time()),
      containerID: tag(7, str({ description: "Runtime container ID (`<type>://<id>`)." })),
    },
    { required: ["exitCode"], description: "A terminated container." },
  ),
);

export const containerState = C(
  "ContainerState",
  obj({ waiting: tag(1, containerStateWaiting), running: tag(2, containerStateRunning), terminated: tag(3, containerStateTerminated) }, { description: "One of the states of a container." }),
);

export const volumeMountStatus = C(
  "VolumeMountStatus",
  obj(
    {
      name: tag(1, str()),
      mountPath: tag(2, str()),
      readOnly: tag(3, bool()),
      recursiveReadOnly: tag(4, enumOf(["Disabled", "IfPossible", "Enabled"])),
      volumeStatus: tag(
        5,
        C("VolumeStatus", obj({ image: tag(1, C("ImageVolumeStatus", obj({ imageRef: tag(1, str({ maxLength: 256 })) }, { required: ["imageRef"] }))) })),
      ),
    },
    { required: ["name", "mountPath"], description: "Status of a volume mount." },
  ),
);

export const containerUser = C(
  "ContainerUser",
  obj({
    linux: tag(
      1,
      C(
        "LinuxContainerUser",
        obj(
          { uid: tag(1, int64()), gid: tag(2, int64()), supplementalGroups: tag(3, list(int64(), { listType: "atomic" })) },
          { required: ["uid", "gid"], description: "Identity of the first process in a Linux container." },
        ),
      ),
    ),
  }),
);

export const resourceHealth = C(
  "ResourceHealth",
  obj(
    {
      resourceID: tag(1, str()),
      health: tag(2, enumOf(["Healthy", "Unhealthy", "Unknown"])),
      message: tag(6, str()),
    },
    { required: ["resourceID"], description: "Health of one allocated device." },
  ),
);

export const resourceStatus = C(
  "ResourceStatus",
  obj(
    { name: tag(1, str()), resources: tag(2, list(resourceHealth, { listType: "map", mapKeys: ["resourceID"] })) },
    { required: ["name"], description: "Health of the devices of one resource." },
  ),
);

export const containerStatus = C(
  "ContainerStatus",
  obj(
    {
      name: tag(1, str({ description: "Container name." })),
      state: tag(2, containerState),
      lastState: tag(3, containerState),
      ready: tag(4, bool({ description: "Passing its readiness probe." })),
      restartCount: tag(5, int32({ minimum: 0, description: "Number of restarts." })),
      image: tag(6, str()),
      imageID: tag(7, str()),
      containerID: tag(8, str()),
      started: tag(9, bool({ description: "Started and passed its startup probe." })),
      allocatedResources: tag(10, resourceList("Resources allocated by the node.")),
      resources: tag(11, resourceRequirements),
      volumeMounts: tag(
        12,
        list(volumeMountStatus, { listType: "map", mapKeys: ["mountPath"], patchStrategy: "merge", patchMergeKey: "mountPath" }),
      ),
      user: tag(13, containerUser),
      allocatedResourcesStatus: tag(14, list(resourceStatus, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name" })),
      stopSignal: tag(15, enumOf(SIGNALS)),
    },
    { required: ["name", "ready", "restartCount", "image", "imageID"], description: "Status of one container." },
  ),
);
