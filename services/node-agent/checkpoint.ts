/**
 * The checkpoint operation behind POST /checkpoint/{namespace}/{pod}/{container}: the
 * pod must be bound to this node and name the container (spec, init or ephemeral
 * containers); the running container is found through the CRI (sandbox metadata, then
 * the sandbox's containers), the runtime writes the archive
 * `<root-dir>/checkpoints/checkpoint-<pod>_<namespace>-<container>-<RFC 3339 time>.tar`,
 * and the agent makes it readable by its owner only (0600; the directory is 0700).
 * Outcomes carry the platform agent's status codes and texts.
 */
import { chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { ApiObject } from "../../shared/client/object-client.ts";
import type { RuntimeClient } from "./cri/runtime-client.ts";
import type { Container, PodSandbox } from "./cri/runtime-proto.ts";

export interface CheckpointOutcome {
  status: number;
  contentType: string;
  body: string;
}

export interface CheckpointDeps {
  rootDir: string;
  runtime: RuntimeClient;
  findPod(namespace: string, name: string): ApiObject | undefined;
  now?: () => Date;
}

export function checkpointsDir(rootDir: string): string {
  return join(rootDir, "checkpoints");
}

/** `<name>_<namespace>`, the platform's full pod name. */
export function podFullName(name: string, namespace: string): string {
  return `${name}_${namespace}`;
}

/** RFC 3339 in UTC, whole seconds. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function archiveName(name: string, namespace: string, container: string, at: Date): string {
  return `checkpoint-${podFullName(name, namespace)}-${container}-${rfc3339(at)}.tar`;
}

function text(status: number, body: string): CheckpointOutcome {
  return { status, contentType: "text/plain; charset=utf-8", body };
}

function podDeclares(pod: ApiObject, container: string): boolean {
  const spec = (pod.spec ?? {}) as Record<string, Array<{ name?: string }> | undefined>;
  return ["containers", "initContainers", "ephemeralContainers"].some((f) => (spec[f] ?? []).some((c) => c.name === container));
}

/** The runtime's container of that pod and name: running first, then the newest. */
async function findRuntimeContainer(runtime: RuntimeClient, pod: ApiObject, container: string): Promise<Container | undefined> {
  const { name, namespace, uid } = pod.metadata;
  const sandboxes = (await runtime.listPodSandbox()).filter(
    (s: PodSandbox) => !!s.metadata && s.metadata.name === name && s.metadata.namespace === namespace && (!uid || !s.metadata.uid || s.metadata.uid === uid),
  );
  const found: Container[] = [];
  for (const s of sandboxes) found.push(...(await runtime.listContainers({ pod_sandbox_id: s.id })).filter((c) => c.metadata?.name === container));
  found.sort((a, b) => Number(a.state !== "CONTAINER_RUNNING") - Number(b.state !== "CONTAINER_RUNNING") || Number(BigInt(b.created_at || "0") - BigInt(a.created_at || "0")));
  return found[0];
}

/** Checkpoints one container; `timeouts` are the request's `timeout` values (the last counts). */
export async function checkpointContainer(deps: CheckpointDeps, namespace: string, name: string, container: string, timeouts: string[]): Promise<CheckpointOutcome> {
  const pod = deps.findPod(namespace, name);
  if (!pod) return text(404, "pod does not exist");
  if (!podDeclares(pod, container)) return text(404, `container ${container} does not exist`);
  let timeout = 0;
  if (timeouts.length > 0) {
    const last = timeouts[timeouts.length - 1];
    if (!/^[+-]?\d+$/.test(last.trim())) return text(404, "cannot parse value of timeout parameter");
    timeout = Number(last);
  }
  const fail = (err: unknown) => text(500, `checkpointing of ${namespace}/${name}/${container} failed (${err instanceof Error ? err.message : String(err)})`);
  try {
    const dir = checkpointsDir(deps.rootDir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    const found = await findRuntimeContainer(deps.runtime, pod, container);
    if (!found) return fail(new Error(`container ${container} not found`));
    const location = join(dir, archiveName(name, namespace, container, (deps.now ?? (() => new Date()))()));
    await deps.runtime.checkpointContainer({ container_id: found.id, location, timeout });
    await chmod(location, 0o600).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw err;
    });
    return { status: 200, contentType: "application/json", body: JSON.stringify({ items: [location] }) };
  } catch (err) {
    return fail(err);
  }
}
