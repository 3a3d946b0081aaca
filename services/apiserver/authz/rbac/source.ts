/**
 * The RBAC objects of a replica, kept in memory from list+watch of the four
 * registries (served from the watch cache). Reads are synchronous snapshots, so
 * one authorization decision never waits on storage.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { Catalog } from "../../registry/catalog.ts";
import type { JsonObject } from "../../storage/object.ts";
import { Informer, type InformerEvent } from "../informer.ts";
import type { RbacSource } from "./resolve.ts";
import type { ClusterRole, Role, RoleBinding } from "./types.ts";

export class RegistryRbacSource implements RbacSource {
  readonly roles: Informer;
  readonly clusterRoles: Informer;
  readonly roleBindings: Informer;
  readonly clusterRoleBindings: Informer;
  private bindingsByNamespace: Map<string, RoleBinding[]> | undefined;
  private clusterBindingList: RoleBinding[] | undefined;
  private readonly listeners: Array<(kind: string, ev: InformerEvent) => void> = [];

  constructor(catalog: Catalog, profile: PlatformProfile, log?: (msg: string, fields: Record<string, unknown>) => void) {
    const group = profile.group("rbac");
    const reg = (plural: string) => {
      const served = catalog.lookup(group, "v1", plural);
      if (!served) throw new Error(`RBAC needs the ${plural}.${group} resource to be served`);
      return new Informer(served.registry, log);
    };
    this.roles = reg("roles");
    this.clusterRoles = reg("clusterroles");
    this.roleBindings = reg("rolebindings");
    this.clusterRoleBindings = reg("clusterrolebindings");
    this.roleBindings.onChange(() => (this.bindingsByNamespace = undefined));
    this.clusterRoleBindings.onChange(() => (this.clusterBindingList = undefined));
    const forward = (kind: string) => (ev: InformerEvent) => {
      for (const l of this.listeners) l(kind, ev);
    };
    this.roles.onChange(forward("Role"));
    this.clusterRoles.onChange(forward("ClusterRole"));
    this.roleBindings.onChange(forward("RoleBinding"));
    this.clusterRoleBindings.onChange(forward("ClusterRoleBinding"));
  }

  /** Lists and watches all four kinds; resolves once every list was applied. */
  async start(): Promise<void> {
    await Promise.all([this.roles.start(), this.clusterRoles.start(), this.roleBindings.start(), this.clusterRoleBindings.start()]);
  }

  stop(): void {
    this.roles.stop();
    this.clusterRoles.stop();
    this.roleBindings.stop();
    this.clusterRoleBindings.stop();
  }

  /** Called after every applied change with the kind (`Role`, `ClusterRole`, ...). */
  onChange(listener: (kind: string, ev: InformerEvent) => void): void {
    this.listeners.push(listener);
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.items.get(`${namespace}/${name}`) as Role | undefined;
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.items.get(`/${name}`) as ClusterRole | undefined;
  }

  listRoleBindings(namespace: string): readonly RoleBinding[] {
    if (!this.bindingsByNamespace) {
      const index = new Map<string, RoleBinding[]>();
      for (const o of this.roleBindings.items.values()) {
        const b = o as unknown as RoleBinding;
        const ns = b.metadata?.namespace ?? "";
        let list = index.get(ns);
        if (!list) index.set(ns, (list = []));
        list.push(b);
      }
      this.bindingsByNamespace = index;
    }
    return this.bindingsByNamespace.get(namespace) ?? [];
  }

  listClusterRoleBindings(): readonly RoleBinding[] {
    this.clusterBindingList ??= [...this.clusterRoleBindings.items.values()].map((o: JsonObject) => o as unknown as RoleBinding);
    return this.clusterBindingList;
  }
}
