/**
 * Part of `npm run bench -- crd` (BENCH_ONLY=path): the CPU a custom resource create
 * spends in the registry (strategy, pruning, defaulting, validation, CEL rules,
 * conversion, the admission hand-offs) against a ConfigMap create carrying the same
 * payload, with no HTTP and no store: both registries write to the same in-memory
 * stub (it answers a JSON round trip of the object, as the store client decodes one),
 * and admission is two no-op hooks (the registry still hands the object to them in the
 * request's version). Measured with this process's CPU clock in interleaved rounds,
 * each kind first in every other round, so it holds up on a loaded machine.
 * BENCH_PATH_CREATES (3,000) creates of each kind a round.
 */
import { join } from "node:path";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import { servedResources } from "../../services/apiserver/apiextensions/served.ts";
import { strategyFor } from "../../services/apiserver/registry/kind-strategies.ts";
import { Registry, type RegistryOptions } from "../../services/apiserver/registry/registry.ts";
import { resourceInfo } from "../../services/apiserver/registry/resource.ts";
import type { ObjectStorage } from "../../services/apiserver/storage/interface.ts";
import type { JsonObject } from "../../services/apiserver/storage/object.ts";
import { cronTabCrd } from "../support/crd-fixtures.ts";
import { diffRows, summarizeProfile } from "./cpu-profile-summary.ts";
import { alternate, cpuProfiled, machineLoad, type RatioTable } from "./harness.ts";

const CREATES = Number(process.env.BENCH_PATH_CREATES ?? 3000);

/** Creates answer a JSON round trip with a resourceVersion; nothing else is used. */
function stubStorage(): ObjectStorage {
  let revision = 1;
  const unused = (): never => {
    throw new Error("not used by this bench");
  };
  return {
    create: async (_key, obj) => {
      const out = JSON.parse(JSON.stringify(obj)) as JsonObject;
      (out.metadata as Record<string, unknown>).resourceVersion = String(++revision);
      return out;
    },
    get: unused,
    list: unused,
    guaranteedUpdate: unused,
    delete: unused,
    watch: unused,
    count: unused,
    currentRevision: unused,
  };
}

function registries(profile: PlatformProfile): { cr: Registry; cm: Registry } {
  const storage = stubStorage();
  const options: RegistryOptions = { admission: { admit: async () => undefined, validate: async () => undefined } };
  const [served] = servedResources(cronTabCrd(profile), profile, storage, options);
  const def = builtinKinds(profile).find((d) => d.group === "core" && d.kind === "ConfigMap");
  if (!served || !def) throw new Error("no CronTab or ConfigMap registry");
  return { cr: served.registry, cm: new Registry(resourceInfo(def, profile), strategyFor(profile)(def), storage, options) };
}

let next = 0;

/** `n` rounded up to an even number: in interleaved rounds, each side then goes first equally often. */
export function evenRounds(n: number): number {
  return n + (n % 2);
}

/** CPU microseconds per create of `count` creates, one after another. */
async function cpuPerCreate(registry: Registry, make: (name: string) => JsonObject, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await registry.create(make(`p-${next++}`), { namespace: "default", dryRun: false });
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** Adds the registry-path comparison to `table`; with `profDir`, profiles both and prints the custom resource's extra self time. */
export async function compareCreatePaths(profile: PlatformProfile, table: RatioTable, cr: (name: string) => JsonObject, cm: (name: string) => JsonObject, profDir: string | undefined): Promise<void> {
  const r = registries(profile);
  const crRound = () => cpuPerCreate(r.cr, cr, CREATES);
  const cmRound = () => cpuPerCreate(r.cm, cm, CREATES);
  await crRound();
  await cmRound();
  const res = await alternate(evenRounds(Math.max(3, Number(process.env.BENCH_ROUNDS ?? 6))), crRound, cmRound);
  process.stdout.write(`registry create rounds (CPU µs per create, custom resource / ConfigMap): ${res.a.map((x, i) => `${x.toFixed(1)}/${res.b[i].toFixed(1)}`).join("  ")}\n`);
  table.add({ key: "path_create_cpu", label: `CPU per create in the registry (no HTTP, no store), ${CREATES} a round`, aName: "custom resource", bName: "ConfigMap", a: res.a, b: res.b, unit: "µs", better: "lower" });
  if (!profDir) return;
  const count = CREATES * 5;
  const crProfile = summarizeProfile((await cpuProfiled(join(profDir, "crd-path-custom-resource.cpuprofile"), () => cpuPerCreate(r.cr, cr, count))).profile, 100_000);
  const cmProfile = summarizeProfile((await cpuProfiled(join(profDir, "crd-path-configmap.cpuprofile"), () => cpuPerCreate(r.cm, cm, count))).profile, 100_000);
  const busy = (p: typeof crProfile) => p.totalMs * (1 - p.idleShare);
  process.stdout.write(
    `${count} registry creates each (${machineLoad()}): busy ${busy(cmProfile).toFixed(0)} ms ConfigMap → ${busy(crProfile).toFixed(0)} ms custom resource; self time, custom resource minus ConfigMap\n` +
      `by file:\n${diffRows(cmProfile.files, crProfile.files, 25)}by function:\n${diffRows(cmProfile.functions, crProfile.functions, 40)}`,
  );
}
