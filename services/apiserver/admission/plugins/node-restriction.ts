/**
 * NodeRestriction (validating phase; default off): a node agent (group
 * `system:nodes`, user `system:node:<name>`) may modify only its own Node
 * object, create and delete only mirror pods bound to itself, update only the
 * status of pods bound to itself, and write only its own Lease in the node-lease
 * namespace. Everyone else passes.
 */
import { forbiddenWithReason } from "../../../../shared/api/status.ts";
import { nodeIdentity } from "../../authz/node.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { AdmissionPlugin, PluginContext } from "../interfaces.ts";

export const NODE_RESTRICTION = "NodeRestriction";

function nodeNameOfPod(pod: JsonObject | undefined): string {
  const spec = pod?.spec as { nodeName?: unknown } | undefined;
  return typeof spec?.nodeName === "string" ? spec.nodeName : "";
}

export function nodeRestriction(ctx: Pick<PluginContext, "profile">): AdmissionPlugin {
  const core = ctx.profile.group("core");
  const coordination = ctx.profile.group("coordination");
  const leaseNamespace = ctx.profile.nodeLeaseNamespace;
  return {
    name: NODE_RESTRICTION,
    handles: (op) => op !== "CONNECT",
    validate(a) {
      const node = nodeIdentity(a.userInfo);
      if (node === undefined) return;
      const { group, resource } = a.resource;
      const deny = (msg: string) => forbiddenWithReason(resource, a.name, msg, group);
      if (group === core && resource === "nodes") {
        if (a.name !== node) throw deny(`node "${node}" is not allowed to modify node "${a.name}"`);
        return;
      }
      if (group === core && resource === "pods") {
        if (a.operation === "CREATE" && !a.subresource) {
          if (nodeNameOfPod(a.object) !== node) throw deny(`node "${node}" can only create pods with spec.nodeName set to itself`);
          return;
        }
        if (a.operation === "DELETE") {
          if (nodeNameOfPod(a.oldObject ?? a.object) !== node) throw deny(`node "${node}" can only delete pods with spec.nodeName set to itself`);
          return;
        }
        if (a.operation === "UPDATE") {
          if (a.subresource !== "status") throw deny(`node "${node}" can only update pod status`);
          if (nodeNameOfPod(a.oldObject) !== node) throw deny(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
        }
        return;
      }
      if (group === coordination && resource === "leases" && a.namespace === leaseNamespace) {
        if (a.name !== node) throw deny(`can only access node lease with the same name as the requesting node`);
      }
    },
  };
}
