/**
 * Where and how the harness connects: a base URL, the CA that verifies the server,
 * and a client identity (certificate and key, or a bearer token). Either from files
 * given on the command line or from a client configuration file (kubeconfig format,
 * its current context; inline `*-data` fields or file paths).
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse } from "yaml";

export interface Connection {
  url: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  /** Skip verification of the serving certificate (only for throwaway servers). */
  insecure: boolean;
}

interface Named<T> {
  name: string;
  cluster?: T;
  user?: T;
  context?: T;
}
interface KubeconfigFile {
  "current-context"?: string;
  clusters?: Array<Named<{ server: string; "certificate-authority"?: string; "certificate-authority-data"?: string; "insecure-skip-tls-verify"?: boolean }>>;
  users?: Array<Named<{ "client-certificate"?: string; "client-certificate-data"?: string; "client-key"?: string; "client-key-data"?: string; token?: string; tokenFile?: string }>>;
  contexts?: Array<Named<{ cluster: string; user: string }>>;
}

function dataOrFile(data: string | undefined, file: string | undefined, base: string): string | undefined {
  if (data !== undefined) return Buffer.from(data, "base64").toString("utf8");
  if (file !== undefined) return readFileSync(resolve(base, file), "utf8");
  return undefined;
}

/** The current context of a client configuration file. */
export function fromKubeconfig(path: string): Connection {
  const doc = parse(readFileSync(path, "utf8")) as KubeconfigFile;
  const base = dirname(resolve(path));
  const ctxName = doc["current-context"];
  const ctx = doc.contexts?.find((c) => c.name === ctxName)?.context;
  if (ctx === undefined) throw new Error(`${path}: no current context`);
  const cluster = doc.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  const user = doc.users?.find((u) => u.name === ctx.user)?.user ?? {};
  if (cluster === undefined) throw new Error(`${path}: context names an unknown cluster "${ctx.cluster}"`);
  return {
    url: cluster.server,
    ca: dataOrFile(cluster["certificate-authority-data"], cluster["certificate-authority"], base),
    cert: dataOrFile(user["client-certificate-data"], user["client-certificate"], base),
    key: dataOrFile(user["client-key-data"], user["client-key"], base),
    token: user.token ?? (user.tokenFile ? readFileSync(resolve(base, user.tokenFile), "utf8").trim() : undefined),
    insecure: cluster["insecure-skip-tls-verify"] === true,
  };
}

export interface ConnectionFlags {
  url?: string;
  kubeconfig?: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  tokenFile?: string;
  insecure: boolean;
}

/** Flags override the configuration file; at least a URL must result. */
export function resolveConnection(f: ConnectionFlags): Connection {
  const base: Connection = f.kubeconfig ? fromKubeconfig(f.kubeconfig) : { url: "", insecure: false };
  const read = (p: string | undefined) => (p ? readFileSync(p, "utf8") : undefined);
  const c: Connection = {
    url: f.url ?? base.url,
    ca: read(f.ca) ?? base.ca,
    cert: read(f.cert) ?? base.cert,
    key: read(f.key) ?? base.key,
    token: f.token ?? read(f.tokenFile)?.trim() ?? base.token,
    insecure: f.insecure || base.insecure,
  };
  if (c.url === "") throw new Error("no server: give --url or --kubeconfig");
  if (!c.url.startsWith("https://")) throw new Error(`--url must be https://..., not "${c.url}"`);
  if ((c.cert === undefined) !== (c.key === undefined)) throw new Error("a client certificate needs its key (--cert with --key)");
  return c;
}
