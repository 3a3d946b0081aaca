/**
 * Where an object from `-f` goes: its resource (by apiVersion and kind, through
 * discovery) and namespace (the object's own, else `-n` or the context's; a mismatch
 * with an explicit `-n` is refused as the platform's CLI refuses it).
 */
import type { ApiObject } from "../../../shared/client/object-client.ts";
import type { ResourceInfo } from "../resources.ts";
import type { Session } from "../session.ts";

export interface Target {
  res: ResourceInfo;
  namespace: string | undefined;
  name: string;
}

export async function targetOf(s: Session, object: ApiObject): Promise<Target> {
  const res = (await s.resolver()).forKind(String(object.apiVersion), String(object.kind));
  const own = object.metadata.namespace;
  if (!res.namespaced) return { res, namespace: undefined, name: object.metadata.name ?? "" };
  if (own && s.namespaceExplicit && own !== s.namespace) {
    throw new Error(`the namespace from the provided object "${own}" does not match the namespace "${s.namespace}". You must pass '--namespace=${own}' to perform this operation.`);
  }
  return { res, namespace: own || s.namespace, name: object.metadata.name ?? "" };
}
