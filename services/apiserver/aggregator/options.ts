/**
 * The aggregation layer's flags: the client certificate presented to aggregated servers
 * (--proxy-client-cert-file, --proxy-client-key-file, both or neither) and
 * --enable-aggregator-routing, accepted for compatibility: this server always routes to
 * an endpoint of the APIService's Service (endpoint.ts), as that flag asks. The
 * front-proxy header names are the first of each --requestheader-*-headers list (the
 * platform's X-Remote-User, X-Remote-Uid, X-Remote-Group, X-Remote-Extra- otherwise).
 */
import { readFile } from "node:fs/promises";
import type { FlagSpec, FlagValues } from "../../../shared/cli/flags.ts";
import type { AuthenticationOptions } from "../authn/options.ts";
import type { AggregatorOptions } from "./aggregator.ts";
import { DEFAULT_FRONT_PROXY_HEADERS } from "./backend.ts";

export const AGGREGATOR_FLAGS: Record<string, FlagSpec> = {
  "proxy-client-cert-file": { kind: "string", help: "Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins." },
  "proxy-client-key-file": { kind: "string", help: "Private key for the client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request." },
  "enable-aggregator-routing": { kind: "boolean", default: false, help: "Turns on aggregator routing requests to endpoints IP rather than cluster IP (always on here: this server routes to endpoints)." },
};

/** The aggregator's options from the flags (certificate files read); throws on a lone certificate or key. */
export async function aggregatorOptionsFrom(flags: FlagValues, authentication: Pick<AuthenticationOptions, "requestHeader">): Promise<Omit<AggregatorOptions, "log">> {
  const certFile = flags["proxy-client-cert-file"] ? String(flags["proxy-client-cert-file"]) : undefined;
  const keyFile = flags["proxy-client-key-file"] ? String(flags["proxy-client-key-file"]) : undefined;
  if (!!certFile !== !!keyFile) throw new Error("--proxy-client-cert-file and --proxy-client-key-file must be given together");
  const rh = authentication.requestHeader;
  return {
    proxyClientCert: certFile && keyFile ? { certPem: await readFile(certFile, "utf8"), keyPem: await readFile(keyFile, "utf8") } : undefined,
    headers: {
      user: rh.usernameHeaders[0] ?? DEFAULT_FRONT_PROXY_HEADERS.user,
      uid: rh.uidHeaders[0] ?? DEFAULT_FRONT_PROXY_HEADERS.uid,
      group: rh.groupHeaders[0] ?? DEFAULT_FRONT_PROXY_HEADERS.group,
      extraPrefix: rh.extraHeadersPrefix[0] ?? DEFAULT_FRONT_PROXY_HEADERS.extraPrefix,
    },
  };
}
