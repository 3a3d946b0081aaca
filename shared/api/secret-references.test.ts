/** The Secrets a pod refers to, one table row per place a name can sit; the Secrets a ServiceAccount lists. */
import { describe, expect, it } from "vitest";
import { accountListsSecret, podSecretNames } from "./secret-references.ts";

type Spec = Record<string, unknown>;
const container = (extra: Spec) => ({ name: "c", image: "i", ...extra });

describe("podSecretNames", () => {
  const table: Array<[string, Spec, string[]]> = [
    ["no references", { containers: [container({})] }, []],
    ["image pull secret", { imagePullSecrets: [{ name: "pull" }, { name: "" }] }, ["pull"]],
    ["env secretKeyRef", { containers: [container({ env: [{ name: "A", valueFrom: { secretKeyRef: { name: "env-s", key: "k" } } }, { name: "B", value: "x" }] })] }, ["env-s"]],
    ["envFrom secretRef", { containers: [container({ envFrom: [{ secretRef: { name: "from-s" } }, { configMapRef: { name: "cm" } }] })] }, ["from-s"]],
    ["init container", { initContainers: [container({ envFrom: [{ secretRef: { name: "init-s" } }] })] }, ["init-s"]],
    ["ephemeral container", { ephemeralContainers: [container({ env: [{ name: "A", valueFrom: { secretKeyRef: { name: "eph-s", key: "k" } } }] })] }, ["eph-s"]],
    ["secret volume", { volumes: [{ name: "v", secret: { secretName: "vol-s" } }] }, ["vol-s"]],
    ["projected secret", { volumes: [{ name: "v", projected: { sources: [{ secret: { name: "proj-s" } }, { serviceAccountToken: { path: "t" } }] } }] }, ["proj-s"]],
    ["azureFile", { volumes: [{ name: "v", azureFile: { secretName: "az-s", shareName: "x" } }] }, ["az-s"]],
    ["csi", { volumes: [{ name: "v", csi: { driver: "d", nodePublishSecretRef: { name: "csi-s" } } }] }, ["csi-s"]],
    ["cephfs", { volumes: [{ name: "v", cephfs: { monitors: ["m"], secretRef: { name: "ceph-s" } } }] }, ["ceph-s"]],
    ["cinder", { volumes: [{ name: "v", cinder: { volumeID: "x", secretRef: { name: "cinder-s" } } }] }, ["cinder-s"]],
    ["flexVolume", { volumes: [{ name: "v", flexVolume: { driver: "d", secretRef: { name: "flex-s" } } }] }, ["flex-s"]],
    ["iscsi", { volumes: [{ name: "v", iscsi: { targetPortal: "p", iqn: "q", lun: 0, secretRef: { name: "iscsi-s" } } }] }, ["iscsi-s"]],
    ["rbd", { volumes: [{ name: "v", rbd: { monitors: ["m"], image: "i", secretRef: { name: "rbd-s" } } }] }, ["rbd-s"]],
    ["scaleIO", { volumes: [{ name: "v", scaleIO: { gateway: "g", system: "s", secretRef: { name: "sio-s" } } }] }, ["sio-s"]],
    ["storageos", { volumes: [{ name: "v", storageos: { volumeName: "x", secretRef: { name: "sos-s" } } }] }, ["sos-s"]],
    ["claims are not followed", { volumes: [{ name: "v", persistentVolumeClaim: { claimName: "claim" } }] }, []],
    ["malformed parts are skipped", { imagePullSecrets: "x", containers: [null, 3, container({ env: [null, { valueFrom: 5 }] })], volumes: [null, { secret: "s" }] }, []],
  ];
  for (const [name, spec, want] of table) {
    it(name, () => expect([...podSecretNames({ metadata: { name: "p" }, spec })].sort()).toEqual(want));
  }

  it("a pod without a spec refers to nothing", () => expect(podSecretNames({ metadata: {} }).size).toBe(0));
});

describe("accountListsSecret", () => {
  const table: Array<[unknown, boolean]> = [
    [[{ name: "t" }], true],
    [[{ name: "other" }, { name: "t" }], true],
    [[{ name: "other" }], false],
    [[], false],
    [undefined, false],
    [[null, "t", { name: 5 }], false],
  ];
  for (const [secrets, want] of table) it(JSON.stringify(secrets), () => expect(accountListsSecret({ metadata: { name: "sa" }, secrets }, "t")).toBe(want));
});
