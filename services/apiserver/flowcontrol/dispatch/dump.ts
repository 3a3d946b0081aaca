/**
 * The text of `/debug/api_priority_and_fairness/dump_priority_levels`, `dump_queues` and
 * `dump_requests`, in the platform's columns: cells joined by ",\t" and aligned like Go's
 * tabwriter (minimum cell width 8, padding 1, spaces; the last cell of a line is not
 * padded). Levels are listed by name. `dump_requests` lists waiting requests with their
 * queue and position, then executing ones with position -1 (queue -1 without queues);
 * `includeRequestDetails` adds the user and request columns.
 */
import type { QueueSetDump, SeatRequest } from "./queue-set.ts";

export interface LevelSnapshot {
  name: string;
  quiescing: boolean;
  isIdle: boolean;
  dump: QueueSetDump;
}

const MIN_WIDTH = 8;
const PADDING = 1;

/** Aligns rows of cells the way Go's tabwriter does for ",\t"-separated text. */
export function tabulate(rows: readonly (readonly string[])[]): string {
  const cells = rows.map((r) => r.map((c, i) => (i < r.length - 1 ? `${c},` : c)));
  const widths: number[] = [];
  for (const r of cells) {
    for (let i = 0; i < r.length - 1; i++) widths[i] = Math.max(widths[i] ?? 0, Math.max(MIN_WIDTH, r[i].length + PADDING));
  }
  return cells.map((r) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]) : c)).join("") + "\n").join("");
}

/** Go's time.RFC3339Nano in UTC: trailing zeros of the fraction dropped; the zero time for "never". */
export function rfc3339Nano(ms: number | undefined): string {
  if (ms === undefined) return "0001-01-01T00:00:00Z";
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : "Z"));
}

export function dumpPriorityLevels(levels: readonly LevelSnapshot[]): string {
  const rows: string[][] = [["PriorityLevelName", "ActiveQueues", "IsIdle", "IsQuiescing", "WaitingRequests", "ExecutingRequests", "DispatchedRequests", "RejectedRequests", "TimedoutRequests", "CancelledRequests"]];
  for (const l of sorted(levels)) {
    const d = l.dump;
    const active = d.queues.filter((q) => q.pending.length > 0).length;
    rows.push([l.name, String(active), String(l.isIdle), String(l.quiescing), String(d.waiting), String(d.executing), String(d.dispatched), String(d.rejected), String(d.timedOut), String(d.cancelled)]);
  }
  return tabulate(rows);
}

/** R values as Go prints the platform's seat-seconds: 8 decimals and "ss". */
function seatSeconds(v: number): string {
  return `${v.toFixed(8)}ss`;
}

export function dumpQueues(levels: readonly LevelSnapshot[]): string {
  const rows: string[][] = [["PriorityLevelName", "Index", "PendingRequests", "ExecutingRequests", "SeatsInUse", "NextDispatchR", "InitialSeatsSum", "MaxSeatsSum", "TotalWorkSum"]];
  for (const l of sorted(levels)) {
    for (const q of l.dump.queues) {
      rows.push([l.name, String(q.index), String(q.pending.length), String(q.executing.length), String(q.seatsInUse), seatSeconds(q.nextDispatchR), String(q.initialSeatsSum), String(q.maxSeatsSum), seatSeconds(q.totalWorkSum)]);
    }
  }
  return tabulate(rows);
}

export function dumpRequests(levels: readonly LevelSnapshot[], includeRequestDetails: boolean): string {
  const header = ["PriorityLevelName", "FlowSchemaName", "QueueIndex", "RequestIndexInQueue", "FlowDistingsher", "ArriveTime", "InitialSeats", "FinalSeats", "AdditionalLatency", "StartTime"];
  const rows: string[][] = [includeRequestDetails ? [...header, "UserName", "Verb", "APIPath", "Namespace", "Name", "APIVersion", "Resource", "SubResource"] : header];
  for (const l of sorted(levels)) {
    const row = (queue: number, position: number, r: SeatRequest): void => {
      const cols = [l.name, r.spec.flowSchema, String(queue), String(position), r.spec.distinguisher, rfc3339Nano(r.arrivedAt), String(r.seats), "0", "0s", rfc3339Nano(r.state === "executing" ? r.startedAt : undefined)];
      const d = r.spec.details;
      if (includeRequestDetails) cols.push(d?.userName ?? "", d?.verb ?? "", d?.path ?? "", d?.namespace ?? "", d?.name ?? "", d?.apiVersion ?? "", d?.resource ?? "", d?.subresource ?? "");
      rows.push(cols);
    };
    for (const q of l.dump.queues) {
      q.pending.forEach((r, i) => row(q.index, i, r));
      for (const r of q.executing) row(q.index, -1, r);
    }
    for (const r of l.dump.queuelessExecuting) row(-1, -1, r);
  }
  return tabulate(rows);
}

function sorted(levels: readonly LevelSnapshot[]): LevelSnapshot[] {
  return [...levels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
