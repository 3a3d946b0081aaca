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
import { CertificateRotationLoop } from "./rotation.ts";
import { currentServingCertPath, requestServingCertificate, type CertificateRequestOptions } from "./tls-bootstrap.ts";

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

/** The serving certificate's rotation; `onCertificate` installs each current certificate in the server. */
export class ServingCertificateRotation extends CertificateRotationLoop {
  constructor(o: CertificateRequestOptions & { hosts: readonly string[]; client: () => HttpsObjectClient; onCertificate: (pair: ServingPair) => void }) {
    let current: ReturnType<typeof currentServingPair>;
    super({
      what: "serving",
      log: o.log,
      current: () => (current = currentServingPair(o.certDir)),
      onCurrent: () => current && o.onCertificate(current),
      request: async (signal) => {
        await requestServingCertificate(o.client(), { ...o, signal });
      },
    });
  }
}
