/**
 * The CRI container log format and the log options of `/containerLogs`, as pure code.
 * A runtime writes one record per line: `<RFC 3339 nano time> <stdout|stderr> <P|F> <text>`
 * (P: a partial line continued by the next record, F: the end of a line). The renderer
 * turns records into what a client reads: the text, with the record's time in front
 * when `timestamps` is asked, records older than `since` left out, only the last
 * `tailLines` lines, and at most `limitBytes` bytes in all.
 */

export interface CriLogRecord {
  /** The time as written (RFC 3339 with nanoseconds). */
  time: string;
  /** Milliseconds since the epoch (for `since`). */
  timeMs: number;
  stream: "stdout" | "stderr";
  /** True for a `P` record: the line goes on in the next record. */
  partial: boolean;
  text: string;
}

const RECORD = /^(\S+) (stdout|stderr) (?:([PF])(?:\S*) )?(.*)$/;

/** One line of a CRI log file; undefined for a line that is not a record. */
export function parseCriLogLine(line: string): CriLogRecord | undefined {
  const m = RECORD.exec(line);
  if (!m) return undefined;
  const timeMs = Date.parse(m[1]);
  if (Number.isNaN(timeMs)) return undefined;
  return { time: m[1], timeMs, stream: m[2] as "stdout" | "stderr", partial: m[3] === "P", text: m[4] };
}

/** The options of a log request after parsing (the node agent's subset of PodLogOptions). */
export interface LogRenderOptions {
  timestamps: boolean;
  /** Records before this time (ms) are left out. */
  sinceMs?: number;
  tailLines?: number;
  limitBytes?: number;
}

/** The records of a whole file, for `tailLines`: the last N complete lines (and their partial parts). */
export function tailRecords(records: readonly CriLogRecord[], tailLines: number | undefined): CriLogRecord[] {
  if (tailLines === undefined) return [...records];
  if (tailLines <= 0) return [];
  let lines = 0;
  let start = records.length;
  for (let i = records.length - 1; i >= 0; i--) {
    if (!records[i].partial) {
      if (lines === tailLines) break;
      lines++;
    }
    start = i;
  }
  return records.slice(start);
}

const encoder = new TextEncoder();

/**
 * Turns records into output bytes, keeping count of `limitBytes` across calls (a follow
 * stream calls `render` for every new chunk of the file).
 */
export class LogRenderer {
  private written = 0;

  constructor(private readonly opts: LogRenderOptions) {}

  /** True once `limitBytes` is reached: the stream ends. */
  get exhausted(): boolean {
    return this.opts.limitBytes !== undefined && this.written >= this.opts.limitBytes;
  }

  render(records: readonly CriLogRecord[]): Uint8Array {
    const parts: string[] = [];
    for (const r of records) {
      if (this.opts.sinceMs !== undefined && r.timeMs < this.opts.sinceMs) continue;
      parts.push(`${this.opts.timestamps ? `${r.time} ` : ""}${r.text}${r.partial ? "" : "\n"}`);
    }
    let bytes = encoder.encode(parts.join(""));
    if (this.opts.limitBytes !== undefined) bytes = bytes.subarray(0, Math.max(0, this.opts.limitBytes - this.written));
    this.written += bytes.byteLength;
    return bytes;
  }
}

/** Splits text read from a log file into records, returning the unfinished last line to keep for the next read. */
export function splitRecords(text: string): { records: CriLogRecord[]; rest: string } {
  const lines = text.split("\n");
  const rest = lines.pop() ?? "";
  const records: CriLogRecord[] = [];
  for (const line of lines) {
    const r = parseCriLogLine(line);
    if (r) records.push(r);
  }
  return { records, rest };
}
