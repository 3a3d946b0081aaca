/**
 * core/v1 volumes: the pod Volume (a name plus one inlined source), projected
 * volumes, ephemeral volumes and the claim spec they share with
 * PersistentVolumeClaim, and the persistent volume sources of PersistentVolumeSpec.
 */
import { bool, enumOf, format, int32, int64, list, mapOf, obj, str, tag } from "../../schema/build.ts";
import type { Schema } from "../../schema/types.ts";
import { labelSelector, objectMeta } from "./meta-v1.ts";
import {
  C,
  IMAGE_PULL_POLICIES,
  inlineLocalName,
  inlined,
  nodeSelector,
  secretReference,
  typedLocalObjectReference,
  typedObjectReference,
  volumeResourceRequirements,
} from "./core-v1-common.ts";
import * as src from "./core-v1-volume-sources.ts";
import { ACCESS_MODES, DEFAULT_VOLUME_MODE, VOLUME_MODES, downwardAPIVolumeFile, fsType, keyItems, modeBits, readOnly } from "./core-v1-volume-sources.ts";

export * from "./core-v1-volume-sources.ts";

export const persistentVolumeClaimSpec = C(
  "PersistentVolumeClaimSpec",
  obj(
    {
      accessModes: tag(1, list(enumOf(ACCESS_MODES), { listType: "atomic", description: "Requested access modes." })),
      selector: tag(4, labelSelector),
      resources: tag(2, volumeResourceRequirements),
      volumeName: tag(3, str({ description: "Name of the bound PersistentVolume." })),
      storageClassName: tag(5, str({ description: "StorageClass of the claim." })),
      volumeMode: tag(6, enumOf(VOLUME_MODES, { default: "Filesystem", description: "Filesystem or raw block." })),
      dataSource: tag(7, typedLocalObjectReference),
      dataSourceRef: tag(8, typedObjectReference),
      volumeAttributesClassName: tag(9, str({ description: "VolumeAttributesClass of the claim." })),
    },
    { description: "Desired characteristics of a volume." },
  ),
);

export const persistentVolumeClaimTemplate = C(
  "PersistentVolumeClaimTemplate",
  obj({ metadata: tag(1, objectMeta), spec: tag(2, persistentVolumeClaimSpec) }, { required: ["spec"], description: "Template of the claim of an ephemeral volume." }),
);

export const ephemeralVolumeSource = C(
  "EphemeralVolumeSource",
  obj({ volumeClaimTemplate: tag(1, persistentVolumeClaimTemplate) }, { description: "A volume provisioned through a claim owned by the pod." }),
);

export const imageVolumeSource = C(
  "ImageVolumeSource",
  obj(
    {
      reference: tag(1, str({ description: "Image or artifact reference." })),
      pullPolicy: tag(2, enumOf(IMAGE_PULL_POLICIES, { description: "When to pull; defaulted from the reference tag." })),
    },
    { description: "An OCI image mounted read-only." },
  ),
);

export const serviceAccountTokenProjection = C(
  "ServiceAccountTokenProjection",
  obj(
    {
      audience: tag(1, str({ description: "Intended audience; the API server by default." })),
      expirationSeconds: tag(2, int64({ default: 3600, minimum: 600, description: "Requested token lifetime." })),
      path: tag(3, str({ description: "File path of the token." })),
    },
    { required: ["path"], description: "A projected service account token." },
  ),
);

export const clusterTrustBundleProjection = C(
  "ClusterTrustBundleProjection",
  obj(
    { name: tag(1, str()), signerName: tag(2, str()), labelSelector: tag(3, labelSelector), optional: tag(5, bool()), path: tag(4, str()) },
    { required: ["path"], description: "Trust bundles written to a file." },
  ),
);

export const podCertificateProjection = C(
  "PodCertificateProjection",
  obj(
    {
      signerName: tag(1, str()),
      keyType: tag(2, enumOf(["RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"])),
      maxExpirationSeconds: tag(3, int32()),
      credentialBundlePath: tag(4, str()),
      keyPath: tag(5, str()),
      certificateChainPath: tag(6, str()),
      userAnnotations: tag(7, mapOf(str())),
    },
    { required: ["signerName", "keyType"], description: "A key and certificate issued for the pod." },
  ),
);

const projectionOf = (name: string, optionalDescription: string) =>
  C(name, obj({ name: inlineLocalName(), items: keyItems(2), optional: tag(4, bool({ description: optionalDescription })) }));

export const volumeProjection = C(
  "VolumeProjection",
  obj(
    {
      secret: tag(1, projectionOf("SecretProjection", "Whether the Secret may be missing.")),
      downwardAPI: tag(2, C("DownwardAPIProjection", obj({ items: tag(1, list(downwardAPIVolumeFile, { listType: "atomic" })) }))),
      configMap: tag(3, projectionOf("ConfigMapProjection", "Whether the ConfigMap may be missing.")),
      serviceAccountToken: tag(4, serviceAccountTokenProjection),
      clusterTrustBundle: tag(5, clusterTrustBundleProjection),
      podCertificate: tag(6, podCertificateProjection),
    },
    { description: "One source of a projected volume." },
  ),
);

export const projectedVolumeSource = C(
  "ProjectedVolumeSource",
  obj(
    { sources: tag(1, list(volumeProjection, { listType: "atomic", description: "Projected sources." })), defaultMode: modeBits(2, DEFAULT_VOLUME_MODE) },
    { description: "Several sources projected into one directory." },
  ),
);

/** The fields of `VolumeSource` (inlined into `Volume`), with their protobuf numbers within `VolumeSource`. */
export const volumeSourceFields: Record<string, Schema> = {
  hostPath: tag(1, src.hostPathVolumeSource),
  emptyDir: tag(2, src.emptyDirVolumeSource),
  gcePersistentDisk: tag(3, src.gcePersistentDiskVolumeSource),
  awsElasticBlockStore: tag(4, src.awsElasticBlockStoreVolumeSource),
  gitRepo: tag(5, src.gitRepoVolumeSource),
  secret: tag(6, src.secretVolumeSource),
  nfs: tag(7, src.nfsVolumeSource),
  iscsi: tag(8, src.iscsiVolumeSource),
  glusterfs: tag(9, src.glusterfsVolumeSource),
  persistentVolumeClaim: tag(10, src.persistentVolumeClaimVolumeSource),
  rbd: tag(11, src.rbdVolumeSource),
  flexVolume: tag(12, src.flexVolumeSource),
  cinder: tag(13, src.cinderVolumeSource),
  cephfs: tag(14, src.cephfsVolumeSource),
  flocker: tag(15, src.flockerVolumeSource),
  downwardAPI: tag(16, src.downwardAPIVolumeSource),
  fc: tag(17, src.fcVolumeSource),
  azureFile: tag(18, src.azureFileVolumeSource),
  configMap: tag(19, src.configMapVolumeSource),
  vsphereVolume: tag(20, src.vsphereVirtualDiskVolumeSource),
  quobyte: tag(21, src.quobyteVolumeSource),
  azureDisk: tag(22, src.azureDiskVolumeSource),
  photonPersistentDisk: tag(23, src.photonPersistentDiskVolumeSource),
  projected: tag(26, projectedVolumeSource),
  portworxVolume: tag(24, src.portworxVolumeSource),
  scaleIO: tag(25, src.scaleIOVolumeSource),
  storageos: tag(27, src.storageOSVolumeSource),
  csi: tag(28, src.csiVolumeSource),
  ephemeral: tag(29, ephemeralVolumeSource),
  image: tag(30, imageVolumeSource),
};

export const volume = C(
  "Volume",
  obj(
    {
      name: tag(1, format("dns1123-label", { description: "Volume name, unique in the pod." })),
      ...inlined(volumeSourceFields),
    },
    { required: ["name"], description: "A named volume of a pod; exactly one source." },
  ),
);

/** The fields of `PersistentVolumeSource` (inlined into `PersistentVolumeSpec`), numbered within that message. */
export const persistentVolumeSourceFields: Record<string, Schema> = {
  gcePersistentDisk: tag(1, src.gcePersistentDiskVolumeSource),
  awsElasticBlockStore: tag(2, src.awsElasticBlockStoreVolumeSource),
  hostPath: tag(3, src.hostPathVolumeSource),
  glusterfs: tag(4, src.glusterfsPersistentVolumeSource),
  nfs: tag(5, src.nfsVolumeSource),
  rbd: tag(6, src.rbdPersistentVolumeSource),
  iscsi: tag(7, src.iscsiPersistentVolumeSource),
  cinder: tag(8, src.cinderPersistentVolumeSource),
  cephfs: tag(9, src.cephfsPersistentVolumeSource),
  fc: tag(10, src.fcVolumeSource),
  flocker: tag(11, src.flockerVolumeSource),
  flexVolume: tag(12, src.flexPersistentVolumeSource),
  azureFile: tag(13, src.azureFilePersistentVolumeSource),
  vsphereVolume: tag(14, src.vsphereVirtualDiskVolumeSource),
  quobyte: tag(15, src.quobyteVolumeSource),
  azureDisk: tag(16, src.azureDiskVolumeSource),
  photonPersistentDisk: tag(17, src.photonPersistentDiskVolumeSource),
  portworxVolume: tag(18, src.portworxVolumeSource),
  scaleIO: tag(19, src.scaleIOPersistentVolumeSource),
  local: tag(20, C("LocalVolumeSource", obj({ path: tag(1, str()), fsType: fsType(2) }, { required: ["path"], description: "A local disk or directory." }))),
  storageos: tag(21, src.storageOSPersistentVolumeSource),
  csi: tag(
    22,
    C(
      "CSIPersistentVolumeSource",
      obj(
        {
          driver: tag(1, str()),
          volumeHandle: tag(2, str()),
          readOnly: readOnly(3),
          fsType: fsType(4),
          volumeAttributes: tag(5, mapOf(str())),
          controllerPublishSecretRef: tag(6, secretReference),
          nodeStageSecretRef: tag(7, secretReference),
          nodePublishSecretRef: tag(8, secretReference),
          controllerExpandSecretRef: tag(9, secretReference),
          nodeExpandSecretRef: tag(10, secretReference),
        },
        { required: ["driver", "volumeHandle"], description: "A volume of a CSI driver." },
      ),
    ),
  ),
};

export const volumeNodeAffinity = C("VolumeNodeAffinity", obj({ required: tag(1, nodeSelector) }, { description: "Nodes the volume can be used from." }));

/** The persistent volume source fields as they appear flattened in `PersistentVolumeSpec`; the source cannot change after creation. */
export function inlinedPersistentVolumeSource(): Record<string, Schema> {
  const out = inlined(persistentVolumeSourceFields);
  for (const k of Object.keys(out)) out[k] = { ...out[k], immutable: true };
  return out;
}
