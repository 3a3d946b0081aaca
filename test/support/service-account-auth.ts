/**
 * Authentication for a test replica that issues and checks service-account tokens:
 * a static token for an admin in system:masters and a fresh P-256 signing key pair,
 * written as files under `dir` (which the test owns and removes).
 */
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultAuthenticationOptions, type AuthenticationOptions } from "../../services/apiserver/authn/options.ts";

export interface ServiceAccountAuthentication {
  authentication: AuthenticationOptions;
  /** The signing key, PKCS#8 PEM. */
  signingKeyPem: string;
  /** Writes `text` to `dir/name` and returns the path. */
  file: (name: string, text: string) => string;
}

export function serviceAccountAuthentication(dir: string, adminToken: string, issuer: string): ServiceAccountAuthentication {
  const keys = generateKeyPairSync("ec", { namedCurve: "P-256", privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = file("tokens.csv", `${adminToken},admin,0,system:masters\n`);
  authentication.serviceAccountSigningKeyFile = file("sa.key", keys.privateKey);
  authentication.serviceAccountKeyFiles = [file("sa.pub", keys.publicKey)];
  authentication.serviceAccountIssuers = [issuer];
  return { authentication, signingKeyPem: keys.privateKey, file };
}
