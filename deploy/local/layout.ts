/**
 * The cluster's layout file (<dir>/layout.json): the port picked for each port
 * offset of components.ts and the naming profile, written by the first `up` and
 * kept by `down`, so that the next `up` on the same directory starts every member
 * at the address its persisted data knows (store member ids hash their peer
 * URLs; a member on a new port is a stranger to the recorded membership).
 * The store's membership is kept too (storeMembers), so members added or removed
 * with `member-add`/`member-remove` stay so across `down` and `up`.
 * `up --fresh` removes the layout with the data (wipeClusterData).
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** One store member of the cluster: its name (and data dir under the cluster dir) and ports. */
export interface StoreMemberLayout {
  name: string;
  clientPort: number;
  peerPort: number;
}

export interface ClusterLayout {
  /** Port by offset (the argument of ComponentContext.port). */
  ports: Record<string, number>;
  profile?: string;
  /** The store's members as `up`, member-add and member-remove left them. */
  storeMembers?: StoreMemberLayout[];
}

export function layoutPath(dir: string): string {
  return join(dir, "layout.json");
}

export function readLayout(dir: string): ClusterLayout {
  const path = layoutPath(dir);
  if (!existsSync(path)) return { ports: {} };
  const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<ClusterLayout>;
  return { ports: parsed.ports ?? {}, profile: parsed.profile, storeMembers: parsed.storeMembers };
}

export function writeLayout(dir: string, layout: ClusterLayout): void {
  writeFileSync(layoutPath(dir), `${JSON.stringify(layout, null, 2)}\n`);
}

/** Returns the recorded port of `offset`, or picks one with `pick` and records it. */
export async function layoutPort(dir: string, layout: ClusterLayout, offset: number, pick: () => Promise<number>): Promise<number> {
  const known = layout.ports[String(offset)];
  if (known !== undefined) return known;
  const port = await pick();
  layout.ports[String(offset)] = port;
  writeLayout(dir, layout);
  return port;
}

/** Entries of a cluster directory that `up` creates; only these are removed by `--fresh`. */
const CLUSTER_ENTRY = /^(store-\d+|redis|apiserver|controller-manager-\d+|controller-manager\.kubeconfig|local-node-\d+|logs|haproxy\.cfg|layout\.json|store-pki)$/;

/** Removes the data, logs and layout of a stopped cluster; other files in `dir` stay. */
export function wipeClusterData(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const removed = readdirSync(dir).filter((name) => CLUSTER_ENTRY.test(name));
  for (const name of removed) rmSync(join(dir, name), { recursive: true, force: true });
  return removed;
}
