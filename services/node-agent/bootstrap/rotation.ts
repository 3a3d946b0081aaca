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

export class ClientCertificateRotation {
  private readonly sleeper = new Sleeper();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly o: CertificateRequestOptions & { kubeconfigPath: string; client: () => HttpsObjectClient; onRotated: (client: HttpsObjectClient) => void },
  ) {}

  start(): void {
    this.loop ??= (async () => {
      while (!this.sleeper.isStopped) {
        const cert = new X509Certificate(readFileSync(realpathSync(currentClientCertPath(this.o.certDir))));
        const deadline = rotationDeadline(Date.parse(cert.validFrom), Date.parse(cert.validTo), 0.7 + 0.2 * Math.random());
        this.o.log("info", "client certificate rotation scheduled", { expiration: new Date(cert.validTo).toISOString(), deadline: new Date(deadline).toISOString() });
        if (!(await this.sleeper.sleep(Math.max(0, deadline - Date.now())))) return;
        try {
          await requestClientCertificate(this.o.client(), { ...this.o, signal: this.abort.signal });
          this.o.onRotated(new HttpsObjectClient(loadKubeconfig(this.o.kubeconfigPath)));
          this.o.log("info", "client certificate rotated", {});
        } catch (err) {
          if (this.sleeper.isStopped) return;
          this.o.log("warn", "client certificate rotation failed, will retry", { error: (err as Error).message });
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
