/**
 * An append-only file that rotates by size, as the platform's log rotation does:
 * past `maxSizeBytes` the file is renamed to `<name>-<UTC time>.<ext>`
 * (time as 2006-01-02T15-04-05.000) and a new one is started; backups beyond
 * `maxBackups` (0: keep all) or older than `maxAgeDays` (0: keep all) are removed.
 * Writes are synchronous (the audit log's blocking mode): a written line is in the file.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";

export interface RotationOptions {
  maxSizeBytes: number;
  maxBackups: number;
  maxAgeDays: number;
  now?: () => number;
}

const DAY_MS = 24 * 3600 * 1000;

export class RotatingFile {
  private fd: number;
  private size: number;
  private readonly now: () => number;

  constructor(
    readonly path: string,
    private readonly opts: RotationOptions,
  ) {
    this.now = opts.now ?? Date.now;
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, "a", 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    if (this.opts.maxSizeBytes > 0 && this.size > 0 && this.size + bytes.length > this.opts.maxSizeBytes) this.rotate();
    writeSync(this.fd, bytes);
    this.size += bytes.length;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** The backups of this file, oldest first. */
  backups(): string[] {
    const { stem, ext } = this.parts();
    const dir = dirname(this.path);
    return readdirSync(dir)
      .filter((f) => f.startsWith(`${stem}-`) && f.endsWith(ext) && /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}$/.test(f.slice(stem.length + 1, f.length - ext.length)))
      .sort()
      .map((f) => join(dir, f));
  }

  private parts(): { stem: string; ext: string } {
    const name = basename(this.path);
    const ext = extname(name);
    return { stem: name.slice(0, name.length - ext.length), ext };
  }

  private rotate(): void {
    closeSync(this.fd);
    const { stem, ext } = this.parts();
    const stamp = new Date(this.now()).toISOString().replace(/Z$/, "").replace(/:/g, "-");
    renameSync(this.path, join(dirname(this.path), `${stem}-${stamp}${ext}`));
    this.fd = openSync(this.path, "a", 0o600);
    this.size = 0;
    this.prune();
  }

  private prune(): void {
    let backups = this.backups();
    if (this.opts.maxAgeDays > 0) {
      const cutoff = this.now() - this.opts.maxAgeDays * DAY_MS;
      for (const b of backups) if (statSync(b).mtimeMs < cutoff) unlinkSync(b);
      backups = this.backups();
    }
    if (this.opts.maxBackups > 0) for (const b of backups.slice(0, Math.max(0, backups.length - this.opts.maxBackups))) unlinkSync(b);
  }
}
