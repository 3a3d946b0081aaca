// Prints one line per seed: the seed, the digest of every Ready the core
// handed out in that simulator schedule, and a summary of the run. Two
// versions of the core behave identically on these schedules iff their
// outputs are identical, so a refactor is checked with
//
//   npx tsx services/store/raft/sim/digest.ts 1 500 > before.txt
//   (change the core)
//   npx tsx services/store/raft/sim/digest.ts 1 500 > after.txt
//   diff before.txt after.txt
//
// Arguments: first seed, last seed (inclusive), and optionally "static" to
// run the schedules without membership changes.

import { SimulationError, runSchedule } from "./simulator.ts";

function main(argv: string[]): void {
  const first = Number(argv[0] ?? "1");
  const last = Number(argv[1] ?? String(first + 99));
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || last < first) {
    throw new RangeError("usage: digest.ts <first seed> <last seed> [static]");
  }
  const membership = argv[2] !== "static";
  for (let seed = first; seed <= last; seed++) {
    try {
      const r = runSchedule(seed, { digest: true, membership });
      console.log(`${seed} ${r.digest} term=${r.maxTerm} leaders=${r.leadersElected} committed=${r.committed} delivered=${r.messagesDelivered}`);
    } catch (e) {
      if (!(e instanceof SimulationError)) throw e;
      console.log(`${seed} FAILED ${e.detail.split("\n")[0]}`);
    }
  }
}

main(process.argv.slice(2));
