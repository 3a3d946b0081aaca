/**
 * core/v1 volume source types: every source a pod volume may use (the
 * deprecated in-tree ones included, so that manifests using them are not
 * reported as unknown fields) and their persistent-volume variants, which
 * differ in how they refer to secrets.
 */
import { bool, enumOf, int32, list, mapOf, obj, quantity, str, tag } from "../../schema/build.ts";
import type { Schema } from "../../schema/types.ts";
import {
  C,
  inlineLocalName,
  keyToPath,
  localObjectReference,
  objectFieldSelector,
  objectReference,
  resourceFieldSelector,
  secretReference,
} from "./core-v1-common.ts";

/** Default file mode of configMap, secret, downwardAPI and projected volumes (0644). */
export const DEFAULT_VOLUME_MODE = 420;

export const fsType = (t: number, def?: string): Schema => tag(t, str({ description: "Filesystem type to mount.", ...(def !== undefined ? { default: def } : {}) }));
export const readOnly = (t: number): Schema => tag(t, bool({ description: "Force a read-only mount." }));
export const keyItems = (t: number): Schema => tag(t, list(keyToPath, { listType: "atomic", description: "Keys to project and their paths; all keys when unset." }));
export const modeBits = (t: number, def?: number): Schema =>
  tag(t, int32({ minimum: 0, maximum: 511, description: "Default file mode bits.", ...(def !== undefined ? { default: def } : {}) }));

export const ACCESS_MODES = ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"];
export const VOLUME_MODES = ["Block", "Filesystem"];

export const hostPathVolumeSource = C(
  "HostPathVolumeSource",
  obj(
    {
      path: tag(1, str({ description: "Path on the host." })),
      type: tag(2, enumOf(["", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"], { default: "", description: "Expected type of the host path." })),
    },
    { required: ["path"], description: "A file or directory on the host." },
  ),
);

export const emptyDirVolumeSource = C(
  "EmptyDirVolumeSource",
  obj(
    {
      medium: tag(1, str({ description: "Storage medium: empty (node default), Memory or HugePages." })),
      sizeLimit: tag(2, quantity({ description: "Size limit of the directory." })),
    },
    { description: "A temporary directory sharing the pod's lifetime." },
  ),
);

const diskSource = (name: string, idField: string) =>
  C(name, obj({ [idField]: tag(1, str()), fsType: fsType(2), partition: tag(3, int32()), readOnly: readOnly(4) }, { required: [idField] }));

export const gcePersistentDiskVolumeSource = diskSource("GCEPersistentDiskVolumeSource", "pdName");
export const awsElasticBlockStoreVolumeSource = diskSource("AWSElasticBlockStoreVolumeSource", "volumeID");

export const gitRepoVolumeSource = C(
  "GitRepoVolumeSource",
  obj({ repository: tag(1, str()), revision: tag(2, str()), directory: tag(3, str()) }, { required: ["repository"], description: "Deprecated: a git checkout." }),
);

export const secretVolumeSource = C(
  "SecretVolumeSource",
  obj(
    {
      secretName: tag(1, str({ description: "Secret in the pod's namespace." })),
      items: keyItems(2),
      defaultMode: modeBits(3, DEFAULT_VOLUME_MODE),
      optional: tag(4, bool({ description: "Whether the Secret may be missing." })),
    },
    { description: "Files from a Secret." },
  ),
);

export const nfsVolumeSource = C(
  "NFSVolumeSource",
  obj(
    { server: tag(1, str({ description: "NFS server host or IP." })), path: tag(2, str({ description: "Exported path." })), readOnly: readOnly(3) },
    { required: ["server", "path"], description: "An NFS mount." },
  ),
);

const iscsiSource = (name: string, secretRef: Schema) =>
  C(
    name,
    obj(
      {
        targetPortal: tag(1, str()),
        iqn: tag(2, str()),
        lun: tag(3, int32()),
        iscsiInterface: tag(4, str({ default: "default" })),
        fsType: fsType(5),
        readOnly: readOnly(6),
        portals: tag(7, list(str(), { listType: "atomic" })),
        chapAuthDiscovery: tag(8, bool()),
        chapAuthSession: tag(11, bool()),
        secretRef: tag(10, secretRef),
        initiatorName: tag(12, str()),
      },
      { required: ["targetPortal", "iqn", "lun"], description: "An iSCSI disk." },
    ),
  );

export const iscsiVolumeSource = iscsiSource("ISCSIVolumeSource", localObjectReference);
export const iscsiPersistentVolumeSource = iscsiSource("ISCSIPersistentVolumeSource", secretReference);

export const glusterfsVolumeSource = C(
  "GlusterfsVolumeSource",
  obj({ endpoints: tag(1, str()), path: tag(2, str()), readOnly: readOnly(3) }, { required: ["endpoints", "path"], description: "Deprecated: a Glusterfs mount." }),
);
export const glusterfsPersistentVolumeSource = C(
  "GlusterfsPersistentVolumeSource",
  obj(
    { endpoints: tag(1, str()), path: tag(2, str()), readOnly: readOnly(3), endpointsNamespace: tag(4, str()) },
    { required: ["endpoints", "path"], description: "Deprecated: a Glusterfs mount." },
  ),
);

export const persistentVolumeClaimVolumeSource = C(
  "PersistentVolumeClaimVolumeSource",
  obj(
    { claimName: tag(1, str({ description: "Claim in the pod's namespace." })), readOnly: readOnly(2) },
    { required: ["claimName"], description: "A PersistentVolumeClaim in the pod's namespace." },
  ),
);

const rbdSource = (name: string, secretRef: Schema) =>
  C(
    name,
    obj(
      {
        monitors: tag(1, list(str(), { listType: "atomic" })),
        image: tag(2, str()),
        fsType: fsType(3),
        pool: tag(4, str({ default: "rbd" })),
        user: tag(5, str({ default: "admin" })),
        keyring: tag(6, str({ default: "/etc/ceph/keyring" })),
        secretRef: tag(7, secretRef),
        readOnly: readOnly(8),
      },
      { required: ["monitors", "image"], description: "Deprecated: a Rados block device." },
    ),
  );
export const rbdVolumeSource = rbdSource("RBDVolumeSource", localObjectReference);
export const rbdPersistentVolumeSource = rbdSource("RBDPersistentVolumeSource", secretReference);

const flexSource = (name: string, secretRef: Schema) =>
  C(
    name,
    obj(
      { driver: tag(1, str()), fsType: fsType(2), secretRef: tag(3, secretRef), readOnly: readOnly(4), options: tag(5, mapOf(str())) },
      { required: ["driver"], description: "Deprecated: an exec-based volume plugin." },
    ),
  );
export const flexVolumeSource = flexSource("FlexVolumeSource", localObjectReference);
export const flexPersistentVolumeSource = flexSource("FlexPersistentVolumeSource", secretReference);

const cinderSource = (name: string, secretRef: Schema) =>
  C(name, obj({ volumeID: tag(1, str()), fsType: fsType(2), readOnly: readOnly(3), secretRef: tag(4, secretRef) }, { required: ["volumeID"], description: "Deprecated: a Cinder volume." }));
export const cinderVolumeSource = cinderSource("CinderVolumeSource", localObjectReference);
export const cinderPersistentVolumeSource = cinderSource("CinderPersistentVolumeSource", secretReference);

const cephfsSource = (name: string, secretRef: Schema) =>
  C(
    name,
    obj(
      {
        monitors: tag(1, list(str(), { listType: "atomic" })),
        path: tag(2, str()),
        user: tag(3, str()),
        secretFile: tag(4, str()),
        secretRef: tag(5, secretRef),
        readOnly: readOnly(6),
      },
      { required: ["monitors"], description: "Deprecated: a CephFS mount." },
    ),
  );
export const cephfsVolumeSource = cephfsSource("CephFSVolumeSource", localObjectReference);
export const cephfsPersistentVolumeSource = cephfsSource("CephFSPersistentVolumeSource", secretReference);

export const flockerVolumeSource = C("FlockerVolumeSource", obj({ datasetName: tag(1, str()), datasetUUID: tag(2, str()) }, { description: "Deprecated: a Flocker dataset." }));

export const downwardAPIVolumeFile = C(
  "DownwardAPIVolumeFile",
  obj(
    {
      path: tag(1, str({ description: "Relative file path." })),
      fieldRef: tag(2, objectFieldSelector),
      resourceFieldRef: tag(3, resourceFieldSelector),
      mode: tag(4, int32({ minimum: 0, maximum: 511 })),
    },
    { required: ["path"], description: "A file holding a pod field or container resource." },
  ),
);

export const downwardAPIVolumeSource = C(
  "DownwardAPIVolumeSource",
  obj(
    { items: tag(1, list(downwardAPIVolumeFile, { listType: "atomic" })), defaultMode: modeBits(2, DEFAULT_VOLUME_MODE) },
    { description: "Files with pod metadata and resources." },
  ),
);

export const fcVolumeSource = C(
  "FCVolumeSource",
  obj(
    {
      targetWWNs: tag(1, list(str(), { listType: "atomic" })),
      lun: tag(2, int32()),
      fsType: fsType(3),
      readOnly: readOnly(4),
      wwids: tag(5, list(str(), { listType: "atomic" })),
    },
    { description: "A Fibre Channel disk." },
  ),
);

export const azureFileVolumeSource = C(
  "AzureFileVolumeSource",
  obj({ secretName: tag(1, str()), shareName: tag(2, str()), readOnly: readOnly(3) }, { required: ["secretName", "shareName"], description: "Deprecated: an Azure file share." }),
);
export const azureFilePersistentVolumeSource = C(
  "AzureFilePersistentVolumeSource",
  obj(
    { secretName: tag(1, str()), shareName: tag(2, str()), readOnly: readOnly(3), secretNamespace: tag(4, str()) },
    { required: ["secretName", "shareName"], description: "Deprecated: an Azure file share." },
  ),
);

export const configMapVolumeSource = C(
  "ConfigMapVolumeSource",
  obj(
    {
      name: inlineLocalName(),
      items: keyItems(2),
      defaultMode: modeBits(3, DEFAULT_VOLUME_MODE),
      optional: tag(4, bool({ description: "Whether the ConfigMap may be missing." })),
    },
    { description: "Files from a ConfigMap." },
  ),
);

export const vsphereVirtualDiskVolumeSource = C(
  "VsphereVirtualDiskVolumeSource",
  obj(
    { volumePath: tag(1, str()), fsType: fsType(2), storagePolicyName: tag(3, str()), storagePolicyID: tag(4, str()) },
    { required: ["volumePath"], description: "Deprecated: a vSphere disk." },
  ),
);

export const quobyteVolumeSource = C(
  "QuobyteVolumeSource",
  obj(
    { registry: tag(1, str()), volume: tag(2, str()), readOnly: readOnly(3), user: tag(4, str()), group: tag(5, str()), tenant: tag(6, str()) },
    { required: ["registry", "volume"], description: "Deprecated: a Quobyte mount." },
  ),
);

export const azureDiskVolumeSource = C(
  "AzureDiskVolumeSource",
  obj(
    {
      diskName: tag(1, str()),
      diskURI: tag(2, str()),
      cachingMode: tag(3, enumOf(["None", "ReadOnly", "ReadWrite"], { default: "ReadWrite" })),
      fsType: fsType(4, "ext4"),
      readOnly: tag(5, bool({ default: false })),
      kind: tag(6, enumOf(["Shared", "Dedicated", "Managed"], { default: "Shared" })),
    },
    { required: ["diskName", "diskURI"], description: "Deprecated: an Azure data disk." },
  ),
);

export const photonPersistentDiskVolumeSource = C(
  "PhotonPersistentDiskVolumeSource",
  obj({ pdID: tag(1, str()), fsType: fsType(2) }, { required: ["pdID"], description: "Deprecated: a Photon Controller disk." }),
);

export const portworxVolumeSource = C(
  "PortworxVolumeSource",
  obj({ volumeID: tag(1, str()), fsType: fsType(2), readOnly: readOnly(3) }, { required: ["volumeID"], description: "Deprecated: a Portworx volume." }),
);

const scaleIOSource = (name: string, secretRef: Schema) =>
  C(
    name,
    obj(
      {
        gateway: tag(1, str()),
        system: tag(2, str()),
        secretRef: tag(3, secretRef),
        sslEnabled: tag(4, bool()),
        protectionDomain: tag(5, str()),
        storagePool: tag(6, str()),
        storageMode: tag(7, str({ default: "ThinProvisioned" })),
        volumeName: tag(8, str()),
        fsType: fsType(9, "xfs"),
        readOnly: readOnly(10),
      },
      { required: ["gateway", "system", "secretRef"], description: "Deprecated: a ScaleIO volume." },
    ),
  );
export const scaleIOVolumeSource = scaleIOSource("ScaleIOVolumeSource", localObjectReference);
export const scaleIOPersistentVolumeSource = scaleIOSource("ScaleIOPersistentVolumeSource", secretReference);

const storageOSSource = (name: string, secretRef: Schema) =>
  C(
    name,
    obj(
      { volumeName: tag(1, str()), volumeNamespace: tag(2, str()), fsType: fsType(3), readOnly: readOnly(4), secretRef: tag(5, secretRef) },
      { description: "Deprecated: a StorageOS volume." },
    ),
  );
export const storageOSVolumeSource = storageOSSource("StorageOSVolumeSource", localObjectReference);
export const storageOSPersistentVolumeSource = storageOSSource("StorageOSPersistentVolumeSource", objectReference);

export const csiVolumeSource = C(
  "CSIVolumeSource",
  obj(
    {
      driver: tag(1, str({ description: "CSI driver name." })),
      readOnly: readOnly(2),
      fsType: fsType(3),
      volumeAttributes: tag(4, mapOf(str(), { description: "Driver-specific attributes." })),
      nodePublishSecretRef: tag(5, localObjectReference),
    },
    { required: ["driver"], description: "An inline volume of a CSI driver." },
  ),
);

