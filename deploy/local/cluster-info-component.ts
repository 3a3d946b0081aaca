/**
 * The `cluster-info` ConfigMap of the local topology, as the platform's installer
 * uploads it: in the profile's public namespace, `data.kubeconfig` a client
 * configuration with the load balancer's address and the cluster CA and no user, and
 * a Role and RoleBinding (`<installer>:bootstrap-signer-clusterinfo`, the installer
 * being `kubeadm` in the kubernetes profile) that let `system:anonymous` get that one
 * ConfigMap, so a node that holds only a bootstrap token can find and trust the API
 * (the controller manager's bootstrap signer adds a `jws-kubeconfig-<token id>`
 * signature per signing token). Written by server-side apply, so `up` after `down`
 * keeps the signatures and refreshes the address. Starts no process.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { pkiPaths } from "../../services/apiserver/server/certs.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import type { ApiObject, ResourceRef } from "../../shared/client/object-client.ts";
import { getProfile, type PlatformProfile } from "../../shared/platform/index.ts";
import type { ClusterComponent } from "./components.ts";
import { waitForFile } from "./controller-manager-component.ts";

export const CLUSTER_INFO = "cluster-info";
const FIELD_MANAGER = "cluster-up";

/** The RBAC name of the anonymous read of cluster-info, prefixed with the profile's installer name. */
export function clusterInfoRoleName(profile: PlatformProfile): string {
  return `${profile.installerName}:bootstrap-signer-clusterinfo`;
}

/** The ConfigMap, Role and RoleBinding the installer keeps, each with its resource. */
export function clusterInfoObjects(profile: PlatformProfile, server: string, caPem: string): Array<{ res: ResourceRef; obj: ApiObject }> {
  const namespace = profile.publicNamespace;
  const rbacGroup = profile.group("rbac");
  const rbac = `${rbacGroup}/v1`;
  const name = clusterInfoRoleName(profile);
  const kubeconfig = stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "", cluster: { "certificate-authority-data": Buffer.from(caPem).toString("base64"), server } }],
    contexts: null,
    "current-context": "",
    preferences: {},
    users: null,
  });
  return [
    { res: { group: "", version: "v1", resource: "configmaps" }, obj: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: CLUSTER_INFO, namespace }, data: { kubeconfig } } },
    {
      res: { group: rbacGroup, version: "v1", resource: "roles" },
      obj: { apiVersion: rbac, kind: "Role", metadata: { name, namespace }, rules: [{ apiGroups: [""], resources: ["configmaps"], resourceNames: [CLUSTER_INFO], verbs: ["get"] }] },
    },
    {
      res: { group: rbacGroup, version: "v1", resource: "rolebindings" },
      obj: {
        apiVersion: rbac,
        kind: "RoleBinding",
        metadata: { name, namespace },
        roleRef: { apiGroup: rbacGroup, kind: "Role", name },
        subjects: [{ apiGroup: rbacGroup, kind: "User", name: "system:anonymous" }],
      },
    },
  ];
}

export const clusterInfoComponent: ClusterComponent = {
  name: "cluster-info",
  async up(ctx) {
    const profile = getProfile(ctx.opts.profile);
    const admin = ctx.outputs.adminKubeconfig as string;
    await waitForFile(admin, 30_000);
    const server = String(ctx.outputs.loadBalancer ?? (ctx.outputs.apiserverEndpoints as string[])[0]);
    const caPem = readFileSync(pkiPaths(join(ctx.opts.dir, "apiserver")).caCert, "utf8");
    const client = HttpsObjectClient.fromKubeconfig(admin);
    try {
      for (const { res, obj } of clusterInfoObjects(profile, server, caPem)) {
        await client.patch(res, String(obj.metadata.name), "apply", obj, { namespace: profile.publicNamespace, fieldManager: FIELD_MANAGER });
      }
    } finally {
      client.close();
    }
    ctx.log(`cluster-info ${profile.publicNamespace}/${CLUSTER_INFO} readable anonymously, server ${server}`);
    return [];
  },
};
