/**
 * `npm run bench -- <name...>`: runs the named benchmarks (all when none is named) and
 * prints their figures, with the machine's load averages before and after each one.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machineLoad } from "./harness.ts";

type Bench = () => Promise<Record<string, number>>;

const BENCHES: Record<string, Bench> = {
  raft: async () => {
    const { benchRaft } = await import("../../services/store/raft/bench.ts");
    const { benchWal } = await import("../../services/store/wal/bench.ts");
    const dir = await mkdtemp(join(tmpdir(), "bench-wal-"));
    try {
      return { ...(await benchRaft()), ...(await benchWal(dir)) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  node: async () => {
    const { benchNode } = await import("../../services/store/node/bench.ts");
    return benchNode();
  },
  api: async () => {
    const { benchApi } = await import("./api.ts");
    return benchApi();
  },
  "api-vs-ref": async () => {
    const { benchApiVsRef } = await import("./api-vs-ref.ts");
    return benchApiVsRef();
  },
  codec: async () => {
    const { benchCodec } = await import("./codec.ts");
    return benchCodec();
  },
  crd: async () => {
    const { benchCustomResources } = await import("./api-crd.ts");
    return benchCustomResources();
  },
  hardening: async () => {
    const { benchHardening } = await import("./hardening.ts");
    return benchHardening();
  },
  "watch-memory": async () => {
    const { benchHardening } = await import("./hardening.ts");
    return benchHardening(["watches"]);
  },
  "livez-lists": async () => {
    const { benchHardening } = await import("./hardening.ts");
    return benchHardening(["lists"]);
  },
  admission: async () => {
    const { benchAdmission } = await import("./admission.ts");
    return benchAdmission();
  },
  idle: async () => {
    const { benchIdle } = await import("./idle.ts");
    return benchIdle();
  },
  controllers: async () => {
    const { benchControllers } = await import("./controllers.ts");
    return benchControllers();
  },
  store: async () => {
    const { benchStore } = await import("./store.ts");
    return benchStore();
  },
  apf: async () => {
    const { benchApf } = await import("./apf.ts");
    return benchApf();
  },
  nodes: async () => {
    const { benchNodes } = await import("./nodes.ts");
    return benchNodes();
  },
  "nodes-store-client": async () => {
    const { benchNodesStoreClient } = await import("./nodes-store-client.ts");
    return benchNodesStoreClient();
  },
};

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((a) => a !== "--");
  const selected = names.length > 0 ? names : Object.keys(BENCHES);
  for (const name of selected) {
    const bench = BENCHES[name];
    if (!bench) {
      process.stderr.write(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(", ")}\n`);
      process.exit(2);
    }
    process.stdout.write(`== ${name}\nmachine before ${name}: ${machineLoad()}\n`);
    const figures = await bench();
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\nmachine after ${name}: ${machineLoad()}\n`);
  }
  process.exit(0);
}

void main();
