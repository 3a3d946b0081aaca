/**
 * The figures a cluster chaos run ends with, the report printed from them, and
 * which of them break the suite's promises (each must be zero, or true):
 * acknowledged writes lost, committed writes answered as failures (5xx or a
 * timeout), unexpected answers, watch events lost / duplicated / out of order /
 * wrong, and linearizability of the recorded history.
 */
import type { FailureClass } from "./api-recorder.ts";
import type { Unavailability } from "./outcomes.ts";
import type { WatcherFigures } from "./watch-check.ts";

export interface ChaosFigures {
  seed: number;
  seconds: number;
  faults: string[];
  operations: number;
  acknowledgedWrites: number;
  /** Writes without a definite answer, by failure class. */
  uncertain: Record<FailureClass, number>;
  /** Of those, the ones that committed. */
  committed: Record<FailureClass, number>;
  acknowledgedWritesLost: number;
  lostSamples: string[];
  linearizable: boolean | "unknown";
  linearizabilityDetail: string;
  watchers: WatcherFigures[];
  longestUnavailability: Unavailability;
  /** What was going on when the longest unavailability began. */
  unavailabilityDuring: string;
  errors: Record<string, number>;
  /** Faults during which committed writes were answered as failures. */
  committedFailureFaults: string[];
  /** Committed writes whose connection was lost, by what was going on. */
  connectionLostDuring: Record<string, number>;
}

const sum = (list: readonly WatcherFigures[], k: keyof Omit<WatcherFigures, "samples">) => list.reduce((a, w) => a + w[k], 0);

export function brokenFigures(f: ChaosFigures): string[] {
  const broken: string[] = [];
  if (f.acknowledgedWritesLost > 0) broken.push(`acknowledged writes lost: ${f.acknowledgedWritesLost}`);
  const answeredFailures = f.committed["5xx"] + f.committed.timeout;
  if (answeredFailures > 0) broken.push(`committed writes answered as failures: ${answeredFailures} (during ${f.committedFailureFaults.join(", ")})`);
  if (f.uncertain.unexpected > 0) broken.push(`unexpected answers to writes: ${f.uncertain.unexpected}`);
  for (const k of ["lost", "duplicated", "outOfOrder", "wrong"] as const) {
    const n = sum(f.watchers, k);
    if (n > 0) broken.push(`watch events ${k}: ${n}`);
  }
  if (f.linearizable !== true) broken.push(`history linearizable: ${String(f.linearizable)}`);
  return broken;
}

export function formatChaosReport(f: ChaosFigures): string {
  const w = f.watchers;
  const lines = [
    `chaos run: seed ${f.seed} (replay with --seed ${f.seed}), ${f.seconds.toFixed(0)} s, ${f.faults.length} fault steps`,
    ...f.faults.map((l) => `  ${l}`),
    `operations: ${f.operations} recorded, ${f.acknowledgedWrites} acknowledged writes`,
    `writes without a definite answer: 5xx ${f.uncertain["5xx"]}, timeout ${f.uncertain.timeout}, connection lost ${f.uncertain.connection}, unexpected ${f.uncertain.unexpected}`,
    `acknowledged writes lost:                      ${f.acknowledgedWritesLost}  (must be 0)`,
    ...f.lostSamples.map((s) => `    ${s}`),
    `committed writes answered as failures:         ${f.committed["5xx"] + f.committed.timeout}  (5xx ${f.committed["5xx"]}, timeout ${f.committed.timeout}; must be 0)${f.committedFailureFaults.length > 0 ? ` during ${f.committedFailureFaults.join(", ")}` : ""}`,
    `committed writes whose connection was lost:    ${f.committed.connection}  (no answer at all${f.committed.connection > 0 ? `: ${Object.entries(f.connectionLostDuring).map(([k, v]) => `${k} ${v}`).join(", ")}` : ""})`,
    `watch events lost / duplicated / out of order: ${sum(w, "lost")} / ${sum(w, "duplicated")} / ${sum(w, "outOfOrder")}  (must be 0; wrong ${sum(w, "wrong")}; skipped by relist after 410: ${sum(w, "relisted")})`,
    ...w.map((x, i) => `    watcher ${i}: ${x.received} received of ${x.expected} expected${x.samples.length > 0 ? `: ${x.samples.join("; ")}` : ""}`),
    `history linearizable:                          ${String(f.linearizable)}${f.linearizable === true ? "" : `\n${f.linearizabilityDetail}`}`,
    `longest unavailability:                        ${f.longestUnavailability.ms.toFixed(0)} ms at +${(f.longestUnavailability.at / 1000).toFixed(1)} s (${f.unavailabilityDuring})`,
    `failures by answer: ${Object.entries(f.errors).map(([k, v]) => `${k} x${v}`).join("; ") || "none"}`,
  ];
  const broken = brokenFigures(f);
  lines.push(broken.length === 0 ? "result: every promise held" : `result: BROKEN\n${broken.map((b) => `  ${b}`).join("\n")}`);
  return `${lines.join("\n")}\n`;
}
