/**
 * One iteration of each scenario, against ConfigMaps of one namespace. Every object a
 * run creates carries the label RUN_LABEL=<run id>, so a run's objects can be counted
 * and removed afterwards.
 *   crud:  create, get, merge-patch, and delete every second object created (creates
 *          and patches stamp data[WRITTEN_AT] with the time they were sent)
 *   list:  a label-selected list, page by page (limit + continue) to the end
 *   watch: a one-item list for the current resourceVersion, then a watch from it held
 *          by the server for watchTimeoutSeconds (k6 cannot stream: same shape there)
 */
import type { LoadClient } from "./client.ts";
import type { Recorder } from "./stats.ts";

export const RUN_LABEL = "loadtest-run";
/** Data key of every create and patch: the writer's clock (ms) when it sent the write, for watch delivery latency. */
export const WRITTEN_AT = "written-at";
export const SCENARIOS = ["crud", "list", "watch"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface ScenarioContext {
  client: LoadClient;
  rec: Recorder;
  namespace: string;
  runId: string;
  /** Virtual user number and its iteration count (unique object names). */
  vu: number;
  iteration: number;
  pageSize: number;
  watchTimeoutSeconds: number;
}

const configMaps = (ns: string) => `/api/v1/namespaces/${encodeURIComponent(ns)}/configmaps`;
const selector = (c: ScenarioContext) => `labelSelector=${encodeURIComponent(`${RUN_LABEL}=${c.runId}`)}`;

async function crud(c: ScenarioContext): Promise<void> {
  const name = `lt-${c.runId}-${c.vu}-${c.iteration}`;
  const base = configMaps(c.namespace);
  const created = await c.client.send("POST", base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { [RUN_LABEL]: c.runId } }, data: { step: "created", [WRITTEN_AT]: String(Date.now()) } });
  c.rec.record("create", created.status, created.ms, created.error ?? created.text);
  if (created.status !== 201) return;
  c.rec.created++;
  const got = await c.client.send("GET", `${base}/${name}`);
  c.rec.record("get", got.status, got.ms, got.error ?? got.text);
  const patched = await c.client.send("PATCH", `${base}/${name}`, { data: { step: "patched", [WRITTEN_AT]: String(Date.now()) } }, "application/merge-patch+json");
  c.rec.record("patch", patched.status, patched.ms, patched.error ?? patched.text);
  if (c.iteration % 2 === 1) {
    const deleted = await c.client.send("DELETE", `${base}/${name}`);
    c.rec.record("delete", deleted.status, deleted.ms, deleted.error ?? deleted.text);
    if (deleted.status === 200 || deleted.status === 202) c.rec.deleted++;
  }
}

interface ListBody {
  metadata?: { continue?: string; resourceVersion?: string };
  items?: unknown[];
}

function parseList(text: string): ListBody {
  try {
    return JSON.parse(text) as ListBody;
  } catch {
    return {};
  }
}

async function list(c: ScenarioContext): Promise<void> {
  let cont: string | undefined;
  for (let page = 0; page < 100; page++) {
    const q = `?limit=${c.pageSize}&${selector(c)}${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`;
    const r = await c.client.send("GET", `${configMaps(c.namespace)}${q}`);
    c.rec.record("list", r.status, r.ms, r.error ?? r.text);
    if (r.status !== 200) return;
    cont = parseList(r.text).metadata?.continue;
    if (!cont) return;
  }
}

async function watch(c: ScenarioContext): Promise<void> {
  const base = configMaps(c.namespace);
  const r = await c.client.send("GET", `${base}?limit=1&${selector(c)}`);
  c.rec.record("list", r.status, r.ms, r.error ?? r.text);
  const rv = r.status === 200 ? parseList(r.text).metadata?.resourceVersion : undefined;
  if (rv === undefined) return;
  const w = await c.client.send("GET", `${base}?watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=${c.watchTimeoutSeconds}&${selector(c)}`);
  // Every line of a watch body is one JSON event; an ERROR event is a failed watch.
  const failed = w.status === 200 && w.text.split("\n").some((line) => line.startsWith('{"type":"ERROR"'));
  c.rec.record("watch", failed ? 410 : w.status, w.ms, w.error ?? w.text);
}

export const RUNNERS: Record<ScenarioName, (c: ScenarioContext) => Promise<void>> = { crud, list, watch };

/** "crud=3,list=1,watch=1" -> a schedule with each name repeated by its weight. */
export function parseMix(text: string): ScenarioName[] {
  const schedule: ScenarioName[] = [];
  for (const part of text.split(",").filter((p) => p.trim() !== "")) {
    const [name, weightText = "1"] = part.split("=").map((s) => s.trim());
    if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`unknown scenario "${name}" in --mix (known: ${SCENARIOS.join(", ")})`);
    const weight = Number(weightText);
    if (!Number.isInteger(weight) || weight < 0) throw new Error(`--mix: weight of ${name} must be a non-negative integer`);
    for (let i = 0; i < weight; i++) schedule.push(name as ScenarioName);
  }
  if (schedule.length === 0) throw new Error("--mix selects no scenario");
  return schedule;
}
