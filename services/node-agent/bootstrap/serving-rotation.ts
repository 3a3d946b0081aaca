/**
 * The serving certificate from the API server (`--rotate-server-certificates`): when
 * `<cert-dir>/kubelet-server-current.pem` holds a certificate that is still valid it is
 * used at once; otherwise (and again at a random point between 70 % and 90 % of the
 * current one's validity) a kubelet-serving request is made with the node's credentials
 * and, once approved and signed, `onCertificate` installs it in the running server. A
 * failed request is retried after a minute. The server serves a self-signed placeholder
 * until the first certificate is issued.
 */
import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import type { HttpsObjectClient } from "../../../shared/client/https-object-client.ts";
import { Sleeper } from "../sleeper.ts";
import { rotationDeadline } from "./rotation.ts";
import { currentServingCertPath, requestServingCertificate, type CertificateRequestOptions } from "./tls-bootstrap.ts";

const RETRY_MS = 60_000;

export interface ServingPair {
  certPem: string;
  keyPem: string;
}

/** The current serving certificate and key when present and not expired. */
export function currentServingPair(certDir: string, nowMs = Date.now()): (ServingPair & { notBeforeMs: number; notAfterMs: number }) | undefined {
  const path = currentServingCertPath(certDir);
  if (!existsSync(path)) return undefined;
  const text = readFileSync(realpathSync(path), "utf8");
  const end = text.indexOf("-----END CERTIFICATE-----");
  if (end < 0) return undefined;
  const certPem = text.slice(0, end + "-----END CERTIFICATE-----".length);
  const cert = new X509Certificate(certPem);
  const notAfterMs = Date.parse(cert.validTo);
  if (notAfterMs <= nowMs) return undefined;
  return { certPem: `${certPem}\n`, keyPem: text.slice(end + "-----END CERTIFICATE-----".length).trim() + "\n", notBeforeMs: Date.parse(cert.validFrom), notAfterMs };
}

export class ServingCertificateRotation {
  private readonly sleeper = new Sleeper();
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly o: CertificateRequestOptions & { hosts: readonly string[]; client: () => HttpsObjectClient; onCertificate: (pair: ServingPair) => void }) {}

  start(): void {
    this.loop ??= (async () => {
      while (!this.sleeper.isStopped) {
        const current = currentServingPair(this.o.certDir);
        if (current) {
          this.o.onCertificate(current);
          const deadline = rotationDeadline(current.notBeforeMs, current.notAfterMs, 0.7 + 0.2 * Math.random());
          this.o.log("info", "serving certificate rotation scheduled", { expiration: new Date(current.notAfterMs).toISOString(), deadline: new Date(deadline).toISOString() });
          if (!(await this.sleeper.sleep(Math.max(0, deadline - Date.now())))) return;
        }
        try {
          await requestServingCertificate(this.o.client(), { ...this.o, signal: this.abort.signal });
          this.o.log("info", "serving certificate issued", {});
        } catch (err) {
          if (this.sleeper.isStopped) return;
          this.o.log("warn", "serving certificate request failed, will retry", { error: (err as Error).message });
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
