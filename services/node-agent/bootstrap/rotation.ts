/**
 * Client certificate rotation: when the agent's client certificate came from TLS
 * bootstrap (`--kubeconfig` points at `<cert-dir>/kubelet-client-current.pem`), a new one
 * is requested with the current certificate at a random point between 70% and 90% of the
 * current one's validity, as the platform's agent does; once written, `onRotated` hands
 * the caller a client using it. A failed request is retried after a minute (or at once
 * when the certificate has expired meanwhile, with the bootstrap credential unavailable).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync, realpathSync } from "node:fs";
import { HttpsObjectClient } from "../../../shared/client/https-object-client.ts";
import { loadKubeconfig } from "../../../shared/client/kubeconfig.ts";
import { Sleeper } from "../sleeper.ts";
import { currentClientCertPath, requestClientCertificate, type CertificateRequestOptions } from "./tls-bootstrap.ts";

const RETRY_MS = 60_000;

/** When to rotate a certificate valid from `notBefore` to `notAfter` (pure; `fraction` in [0.7, 0.9]). */
export function rotationDeadline(notBeforeMs: number, notAfterMs: number, fraction: number): number {
  const f = Math.min(0.9, Math.max(0.7, fraction));
  return notBeforeMs + (notAfterMs - notBeforeMs) * f;
}

export function usesBootstrappedCertificate(kubeconfigPath: string, certDir: string): boolean {
  try {
    const text = readFileSync(kubeconfigPath, "utf8");
    return text.includes(currentClientCertPath(certDir));
  } catch {
    return false;
  }
}

/** What one rotating certificate needs: its current validity, the request for a new one, what to do with each. */
export interface RotatingCertificate {
  /** `client` or `serving`: named in the log lines. */
  what: string;
  log: CertificateRequestOptions["log"];
  /** The current certificate's validity; undefined when there is none (request at once). */
  current(): { notBeforeMs: number; notAfterMs: number } | undefined;
  /** Called with each current certificate before its rotation is scheduled. */
  onCurrent?(): void;
  /** Requests, waits for and writes a new certificate. */
  request(signal: AbortSignal): Promise<void>;
  /** Called once a new certificate is written. */
  onIssued?(): void;
}

/**
 * The rotation loop shared by the client and serving certificates: sleep until a random
 * point between 70% and 90% of the current validity, request a new one, repeat; a failed
 * request is retried after a minute.
 */
export class CertificateRotationLoop {
  private readonly sleeper = new Sleeper();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly c: RotatingCertificate) {}

  start(): void {
    this.loop ??= (async () => {
      while (!this.sleeper.isStopped) {
        const current = this.c.current();
        if (current) {
          this.c.onCurrent?.();
          const deadline = rotationDeadline(current.notBeforeMs, current.notAfterMs, 0.7 + 0.2 * Math.random());
          this.c.log("info", `${this.c.what} certificate rotation scheduled`, { expiration: new Date(current.notAfterMs).toISOString(), deadline: new Date(deadline).toISOString() });
          if (!(await this.sleeper.sleep(Math.max(0, deadline - Date.now())))) return;
        }
        try {
          await this.c.request(this.abort.signal);
          this.c.onIssued?.();
          this.c.log("info", `${this.c.what} certificate rotated`, {});
        } catch (err) {
          if (this.sleeper.isStopped) return;
          this.c.log("warn", `${this.c.what} certificate rotation failed, will retry`, { error: (err as Error).message });
          if (!(await this.sleeper.sleep(RETRY_MS))) return;
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.sleeper.stop();
    this.abort.abort();
    await this.loop;
  }
}

/** The client certificate's rotation; `onRotated` gets a client using the new certificate. */
export class ClientCertificateRotation extends CertificateRotationLoop {
  constructor(o: CertificateRequestOptions & { kubeconfigPath: string; client: () => HttpsObjectClient; onRotated: (client: HttpsObjectClient) => void }) {
    super({
      what: "client",
      log: o.log,
      current: () => {
        const cert = new X509Certificate(readFileSync(realpathSync(currentClientCertPath(o.certDir))));
        return { notBeforeMs: Date.parse(cert.validFrom), notAfterMs: Date.parse(cert.validTo) };
      },
      request: async (signal) => {
        await requestClientCertificate(o.client(), { ...o, signal });
      },
      onIssued: () => o.onRotated(new HttpsObjectClient(loadKubeconfig(o.kubeconfigPath))),
    });
  }
}
