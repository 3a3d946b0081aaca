/**
 * The Node authorizer, for node agents (group `system:nodes`, user
 * `system:node:<nodeName>`):
 * - reads of secrets, ConfigMaps, volume claims, volumes and service accounts
 *   only when a pod bound to the node references them (the graph);
 * - its own Node object only (get; list/watch limited to it by name), and writes
 *   of it and its status; pods bound to it (get; list/watch selected by
 *   `spec.nodeName=<node>`; status and eviction writes);
 * - Leases in the node-lease namespace named after the node, its CSINode;
 * - everything else the node role grants (services and endpoints reads, events,
 *   certificate signing requests, TokenReview and SubjectAccessReview creates,
 *   mirror pod create/delete, which `nodeRestriction` narrows).
 * It never denies: a request it does not allow gets no opinion.
 *
 * The admission half (a node may not modify other nodes, or pods and leases that
 * are not its own) is the NodeRestriction plugin in admission/plugins/.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { isReadOnly, requiredSelectorValue } from "./attributes.ts";
import { nodeRules } from "./default-policy.ts";
import type { NodeGraph } from "./node-graph.ts";
import { rulesAllow } from "./rbac/rules.ts";
import type { PolicyRule } from "./rbac/types.ts";
import { ALLOW, NO_OPINION, NODES_GROUP, NODE_USER_PREFIX, type Attributes, type Authorizer, type Decision, type UserInfo } from "./types.ts";

/** The node name of a node agent identity, or undefined for anyone else. */
export function nodeIdentity(user: UserInfo | undefined): string | undefined {
  if (!user || !user.groups.includes(NODES_GROUP) || !user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  const name = user.username.slice(NODE_USER_PREFIX.length);
  return name === "" ? undefined : name;
}

export class NodeAuthorizer implements Authorizer {
  readonly name = "Node";
  private readonly staticRules: PolicyRule[];
  private readonly core: string;
  private readonly coordination: string;
  private readonly storage: string;

  constructor(
    readonly graph: NodeGraph,
    readonly profile: PlatformProfile,
  ) {
    this.staticRules = nodeRules(profile);
    this.core = profile.group("core");
    this.coordination = profile.group("coordination");
    this.storage = profile.group("storage");
  }

  authorize(attrs: Attributes): Decision {
    const node = nodeIdentity(attrs.user);
    if (node === undefined) return NO_OPINION();
    if (!attrs.isResourceRequest) return NO_OPINION();
    const noRelation = () => NO_OPINION(`no relationship found between node '${node}' and this object`);
    const { apiGroup: group, resource, subresource, verb, namespace, name } = attrs;

    if (group === this.core) {
      switch (resource) {
        case "secrets":
        case "configmaps": {
          if (subresource || !isReadOnly(attrs) || !name) return noRelation();
          return this.graph.reachable(node, resource === "secrets" ? "secret" : "configmap", namespace, name) ? ALLOW() : noRelation();
        }
        case "persistentvolumeclaims": {
          if (!name) return noRelation();
          const ok = subresource === "status" ? verb === "get" || verb === "update" || verb === "patch" : subresource === "" && verb === "get";
          return ok && this.graph.reachable(node, "pvc", namespace, name) ? ALLOW() : noRelation();
        }
        case "persistentvolumes":
          return verb === "get" && !subresource && name && this.graph.reachable(node, "pv", "", name) ? ALLOW() : noRelation();
        case "serviceaccounts": {
          const ok = subresource === "token" ? verb === "create" : subresource === "" && verb === "get";
          return ok && name && this.graph.reachable(node, "serviceaccount", namespace, name) ? ALLOW() : noRelation();
        }
        case "nodes":
          return this.nodes(attrs, node);
        case "pods":
          return this.pods(attrs, node);
      }
    }
    if (group === this.coordination && resource === "leases") {
      const ok = namespace === this.profile.nodeLeaseNamespace && !subresource && ["get", "create", "update", "patch", "delete"].includes(verb) && (name === node || (verb === "create" && name === ""));
      return ok ? ALLOW() : NO_OPINION(`can only access node lease with the same name as the requesting node`);
    }
    if (group === this.storage && resource === "csinodes") {
      const ok = !subresource && ["get", "create", "update", "patch", "delete"].includes(verb) && (name === node || (verb === "create" && name === ""));
      return ok ? ALLOW() : NO_OPINION(`can only access CSINode with the same name as the requesting node`);
    }
    return rulesAllow(attrs, this.staticRules) ? ALLOW() : NO_OPINION();
  }

  private nodes(attrs: Attributes, node: string): Decision {
    const { verb, subresource, name } = attrs;
    const own = name === node || (name === "" && requiredSelectorValue(attrs.fieldSelector, "metadata.name") === node);
    if (subresource === "" && (verb === "get" || verb === "list" || verb === "watch")) return own ? ALLOW() : NO_OPINION(`node '${node}' cannot read '${name}', only its own Node object`);
    if (subresource === "" && verb === "create") return name === "" || name === node ? ALLOW() : NO_OPINION();
    if ((subresource === "" || subresource === "status") && (verb === "update" || verb === "patch")) return name === node ? ALLOW() : NO_OPINION(`node '${node}' cannot modify node '${name}'`);
    return NO_OPINION();
  }

  private pods(attrs: Attributes, node: string): Decision {
    const { verb, subresource, name, namespace } = attrs;
    const bound = name !== "" && this.graph.podNode(namespace, name) === node;
    if (subresource === "") {
      if (verb === "get") return bound ? ALLOW() : NO_OPINION(`no relationship found between node '${node}' and this object`);
      if (verb === "list" || verb === "watch") {
        return requiredSelectorValue(attrs.fieldSelector, "spec.nodeName") === node || bound ? ALLOW() : NO_OPINION(`can only list/watch pods with spec.nodeName field selector`);
      }
      // Mirror pods: NodeRestriction limits these to pods bound to the node.
      if (verb === "create" || verb === "delete") return ALLOW();
      return NO_OPINION();
    }
    if (subresource === "status" && (verb === "update" || verb === "patch")) return bound ? ALLOW() : NO_OPINION(`node '${node}' can only update status of pods bound to it`);
    if (subresource === "eviction" && verb === "create") return bound ? ALLOW() : NO_OPINION();
    return NO_OPINION();
  }
}
