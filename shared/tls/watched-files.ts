/**
 * PEM files (a certificate with its key, and/or a CA bundle) that are read at
 * start-up and read again when they change on disk, so a rotated certificate is
 * used without a restart.
 *
 * Contracts:
 * - the constructor reads every file at once and throws an Error naming the file
 *   when one is missing or unreadable, is not PEM of the right kind, or when the
 *   key does not belong to the certificate (start-up errors, as the flags' checks);
 * - afterwards the files are polled (size, mtime, inode) every `pollMs`; a change
 *   whose files are complete and consistent replaces the current material and is
 *   announced to the listeners; a half-written or mismatched set is ignored and
 *   reported through `onError`, the previous material stays in use;
 * - it implements grpc-js's CertificateProvider, so gRPC servers and channels built
 *   from it pick up new material for new connections (open connections keep theirs);
 * - `close()` stops polling. The poll timer never keeps a process alive.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import type { experimental } from "@grpc/grpc-js";

type CertificateProvider = experimental.CertificateProvider;
type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

export interface TlsFilePaths {
  /** PEM certificate (chain) presented to the other side; needs keyFile. */
  certFile?: string;
  keyFile?: string;
  /** PEM bundle of the CAs that the other side's certificate must chain to. */
  caFile?: string;
}

export interface TlsMaterial {
  cert?: Buffer;
  key?: Buffer;
  ca?: Buffer;
}

export const DEFAULT_POLL_MS = 1000;

function read(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { cause: err });
  }
}

/** Reads and checks the files; throws an Error naming the first bad one. */
export function loadTlsMaterial(paths: TlsFilePaths): TlsMaterial {
  if ((paths.certFile === undefined) !== (paths.keyFile === undefined)) throw new Error("a certificate file and a key file must be given together");
  const out: TlsMaterial = {};
  if (paths.certFile !== undefined && paths.keyFile !== undefined) {
    const cert = read(paths.certFile, "certificate");
    const key = read(paths.keyFile, "key");
    let parsed: X509Certificate;
    try {
      parsed = new X509Certificate(cert);
    } catch (err) {
      throw new Error(`${paths.certFile} holds no PEM certificate`, { cause: err });
    }
    let privateKey: ReturnType<typeof createPrivateKey>;
    try {
      privateKey = createPrivateKey(key);
    } catch (err) {
      throw new Error(`${paths.keyFile} holds no PEM private key`, { cause: err });
    }
    if (!parsed.checkPrivateKey(privateKey)) throw new Error(`the key in ${paths.keyFile} does not match the certificate in ${paths.certFile}`);
    out.cert = cert;
    out.key = key;
  }
  if (paths.caFile !== undefined) {
    const ca = read(paths.caFile, "CA");
    try {
      new X509Certificate(ca);
    } catch (err) {
      throw new Error(`${paths.caFile} holds no PEM certificate`, { cause: err });
    }
    out.ca = ca;
  }
  return out;
}

function fingerprint(paths: TlsFilePaths): string {
  return [paths.certFile, paths.keyFile, paths.caFile]
    .map((p) => {
      if (p === undefined) return "-";
      try {
        const s = statSync(p);
        return `${s.ino}:${s.size}:${s.mtimeMs}`;
      } catch {
        return "missing";
      }
    })
    .join("|");
}

export class WatchedTlsFiles implements CertificateProvider {
  private material: TlsMaterial;
  private stamp: string;
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();
  private readonly changeListeners = new Set<(m: TlsMaterial) => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly paths: TlsFilePaths,
    private readonly opts: { pollMs?: number; onError?: (err: Error) => void } = {},
  ) {
    this.stamp = fingerprint(paths);
    this.material = loadTlsMaterial(paths);
    this.timer = setInterval(() => this.poll(), opts.pollMs ?? DEFAULT_POLL_MS);
    this.timer.unref();
  }

  /** The material in use now. */
  current(): TlsMaterial {
    return this.material;
  }

  /** Called with the new material after each accepted change. */
  onChange(listener: (m: TlsMaterial) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Checks the files now (the timer does it every pollMs). */
  poll(): void {
    const stamp = fingerprint(this.paths);
    if (stamp === this.stamp) return;
    let next: TlsMaterial;
    try {
      next = loadTlsMaterial(this.paths);
    } catch (err) {
      // Possibly mid-rotation: keep the previous material and retry on the next change.
      this.stamp = stamp;
      this.opts.onError?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.stamp = stamp;
    this.material = next;
    for (const l of this.identityListeners) l(this.identityUpdate());
    for (const l of this.caListeners) l(this.caUpdate());
    for (const l of this.changeListeners) l(next);
  }

  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private identityUpdate(): experimental.IdentityCertificateUpdate | null {
    const { cert, key } = this.material;
    return cert !== undefined && key !== undefined ? { certificate: cert, privateKey: key } : null;
  }

  private caUpdate(): experimental.CaCertificateUpdate | null {
    return this.material.ca !== undefined ? { caCertificate: this.material.ca } : null;
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    process.nextTick(() => listener(this.caUpdate()));
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    process.nextTick(() => listener(this.identityUpdate()));
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
  }
}
