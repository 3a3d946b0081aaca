/**
 * `--use-service-account-credentials`: each controller writes as its own service
 * account of the system namespace (`<client name>`, e.g. `namespace-controller`,
 * bound by the default policy to `system:controller:<client name>`), as the platform's
 * controller manager does. The root client (from `--kubeconfig`) makes sure the
 * account exists and requests a token for it (TokenRequest, one hour), held in memory
 * and renewed by a RenewedToken (shared/client/renewed-token.ts): nothing is left on
 * disk when the process is killed. Without the flag every controller uses the root client.
 */
import { isStatusError } from "../../shared/api/status.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { resourcePath, type ApiObject, type ObjectClient, type PathGetter } from "../../shared/client/object-client.ts";
import { RenewedToken, type IssuedToken } from "../../shared/client/renewed-token.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";

export type ControllerClient = ObjectClient & PathGetter;
export type ClientFor = (clientName: string) => Promise<ControllerClient>;

const TOKEN_SECONDS = 3600;
export class ServiceAccountCredentials {
  private readonly clients = new Map<string, Promise<HttpsObjectClient>>();
  private readonly tokens = new Set<RenewedToken>();

  constructor(
    private readonly root: HttpsObjectClient,
    private readonly profile: PlatformProfile,
    private readonly log: LogFn,
  ) {}

  readonly clientFor: ClientFor = (name) => {
    let c = this.clients.get(name);
    if (!c) {
      c = this.build(name);
      this.clients.set(name, c);
      c.catch(() => this.clients.delete(name));
    }
    return c;
  };

  private async build(name: string): Promise<HttpsObjectClient> {
    const ns = this.profile.systemNamespace;
    const accounts = { group: "", version: "v1", resource: "serviceaccounts" };
    try {
      await this.root.create(accounts, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: ns } }, { namespace: ns });
    } catch (err) {
      if (!isStatusError(err, "AlreadyExists")) throw err;
    }
    const issue = async (): Promise<IssuedToken> => {
      const body = { apiVersion: this.profile.apiVersion("authentication", "v1"), kind: "TokenRequest", metadata: { name, namespace: ns }, spec: { expirationSeconds: TOKEN_SECONDS } };
      const answer = (await this.root.transport.json("POST", resourcePath(accounts, ns, name, "token"), { contentType: "application/json", data: JSON.stringify(body) })) as ApiObject;
      const status = (answer.status ?? {}) as { token?: string; expirationTimestamp?: string };
      if (!status.token) throw new Error(`no token for service account ${ns}/${name}`);
      return { token: status.token, expiresAt: Date.parse(status.expirationTimestamp ?? "") || Date.now() + TOKEN_SECONDS * 1000 };
    };
    const token = new RenewedToken(issue, (err) => this.log("warn", "service account token renewal failed", { account: name, error: String(err) }));
    this.tokens.add(token);
    await token.fetch();
    const { server, ca, insecureSkipTlsVerify, tlsServerName } = this.root.config;
    return new HttpsObjectClient({ server, ca, insecureSkipTlsVerify, tlsServerName }, { credentials: token });
  }

  close(): void {
    for (const t of this.tokens) t.close();
    for (const c of this.clients.values()) void c.then((x) => x.close(), () => {});
  }
}
