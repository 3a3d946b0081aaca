/**
 * Typed clients for every built-in kind the apiserver serves, built from one table
 * (typed/kinds.generated.ts, generated from the apiserver's own `builtinKinds`): object
 * types derived from the same schemas the server validates with, and one KindClient
 * per entry (typed/client.ts) that offers exactly the verbs and subresources it serves.
 *   const c = typedClients(objectClient, profile);
 *   await c.apps.v1.deployments.create({ metadata: { name: "a", namespace: "default" }, spec: { … } });
 *   await c.pods.evict("p", { namespace: "default" });   // accessors naming one kind also sit at the top
 * Groups are the profile-independent group keys (`core`, `apps`, `rbac` …); the wire names
 * come from the profile. Namespaced kinds take the namespace from the object or the
 * options; a list or watch without one spans every namespace. Eviction, binding, token,
 * log and proxy need the raw transport, taken from `client.transport` when it has one.
 */
import type { PlatformProfile } from "../platform/index.ts";
import type { ObjectClient } from "./object-client.ts";
import { KindClient, servedClient, type ClientFor, type KindDescriptor, type RawSender } from "./typed/client.ts";
import { BUILTIN_KIND_TABLE, UNIQUE_ACCESSORS, type BuiltinKindTypes } from "./typed/kinds.generated.ts";

export { KindClient, SUBRESOURCE_METHODS, VERB_METHODS, type ApplyOptions, type ClientFor, type KindDescriptor, type LogOptions, type RawSender, type TypedList, type TypedWatch, type TypedWatchEvent } from "./typed/client.ts";
export { BUILTIN_KIND_TABLE, SUBRESOURCE_BODY_KINDS, UNIQUE_ACCESSORS, type BuiltinKindTypes, type SubresourceBodyTypes } from "./typed/kinds.generated.ts";

type Table = typeof BUILTIN_KIND_TABLE;
type At<T, K> = K extends keyof T ? T[K] : never;
type ObjectAt<G, V, N> = At<At<At<BuiltinKindTypes, G>, V>, N> extends infer O extends object ? O : never;
type DescriptorAt<G, V, N> = At<At<At<Table, G>, V>, N> extends infer D extends KindDescriptor ? D : never;

/** `clients.<group>.<version>.<accessor>`, each typed by its table entry. */
export type BuiltinClients = {
  [G in keyof Table]: { [V in keyof Table[G]]: { [N in keyof Table[G][V]]: ClientFor<DescriptorAt<G, V, N>, ObjectAt<G, V, N>> } };
};

type Unique = typeof UNIQUE_ACCESSORS;

/** The accessors that name one kind in the whole table, also at the top level (`clients.pods`). */
export type UniqueClients = { [N in keyof Unique]: ClientFor<DescriptorAt<Unique[N][0], Unique[N][1], N>, ObjectAt<Unique[N][0], Unique[N][1], N>> };

export type TypedClients = BuiltinClients & UniqueClients;

/** The object type of a table entry: `ObjectOf<"apps", "v1", "deployments">`. */
export type ObjectOf<G extends keyof Table, V extends keyof Table[G], N extends keyof Table[G][V]> = ObjectAt<G, V, N>;

function rawSenderOf(client: ObjectClient): RawSender | undefined {
  const transport = (client as { transport?: unknown }).transport;
  return transport && typeof (transport as RawSender).send === "function" ? (transport as RawSender) : undefined;
}

/** The typed clients of every built-in kind over one object client. */
export function typedClients(client: ObjectClient, profile: PlatformProfile, raw: RawSender | undefined = rawSenderOf(client)): TypedClients {
  const groups: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const [group, versions] of Object.entries(BUILTIN_KIND_TABLE)) {
    const byVersion: Record<string, Record<string, unknown>> = (groups[group] = {});
    for (const [version, entries] of Object.entries(versions)) {
      const byName: Record<string, unknown> = (byVersion[version] = {});
      for (const [name, descriptor] of Object.entries(entries as Record<string, KindDescriptor>)) {
        byName[name] = servedClient(new KindClient<object>(client, profile, group as keyof Table, version, descriptor, raw));
      }
    }
  }
  const top: Record<string, unknown> = {};
  for (const [name, [group, version]] of Object.entries(UNIQUE_ACCESSORS)) top[name] = groups[group][version][name];
  return { ...groups, ...top } as unknown as TypedClients;
}
