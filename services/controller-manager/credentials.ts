/**
 * `--use-service-account-credentials`: each controller writes as its own service
 * account of the system namespace (`<client name>`, e.g. `namespace-controller`,
 * bound by the default policy to `system:controller:<client name>`), as the platform's
 * controller manager does. The root client (from `--kubeconfig`) makes sure the
 * account exists and requests a token for it (TokenRequest, one hour), which is kept
 * in a private file (mode 0600) and renewed at 80 % of its life; the controller's
 * client reads that file. Without the flag every controller uses the root client.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isStatusError } from "../../shared/api/status.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { resourcePath, type ApiObject, type ObjectClient, type PathGetter } from "../../shared/client/object-client.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";

export type ControllerClient = ObjectClient & PathGetter;
export type ClientFor = (clientName: string) => Promise<ControllerClient>;

const TOKEN_SECONDS = 3600;

export class ServiceAccountCredentials {
  private readonly dir = mkdtempSync(join(tmpdir(), "controller-credentials-"));
  private readonly clients = new Map<string, Promise<HttpsObjectClient>>();
  private readonly timers = new Set<NodeJS.Timeout>();

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
    const file = join(this.dir, name);
    const refresh = async (): Promise<void> => {
      const body = { apiVersion: this.profile.apiVersion("authentication", "v1"), kind: "TokenRequest", metadata: { name, namespace: ns }, spec: { expirationSeconds: TOKEN_SECONDS } };
      const answer = (await this.root.transport.json("POST", resourcePath(accounts, ns, name, "token"), { contentType: "application/json", data: JSON.stringify(body) })) as ApiObject;
      const status = (answer.status ?? {}) as { token?: string; expirationTimestamp?: string };
      if (!status.token) throw new Error(`no token for service account ${ns}/${name}`);
      writeFileSync(`${file}.new`, status.token, { mode: 0o600 });
      renameSync(`${file}.new`, file);
      const life = Math.max(60_000, (Date.parse(status.expirationTimestamp ?? "") || Date.now() + TOKEN_SECONDS * 1000) - Date.now());
      const t = setTimeout(() => {
        this.timers.delete(t);
        refresh().catch((err: unknown) => this.log("warn", "service account token renewal failed", { account: name, error: String(err) }));
      }, life * 0.8);
      t.unref();
      this.timers.add(t);
    };
    await refresh();
    const { server, ca, insecureSkipTlsVerify, tlsServerName } = this.root.config;
    return new HttpsObjectClient({ server, ca, insecureSkipTlsVerify, tlsServerName, tokenFile: file });
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    for (const c of this.clients.values()) void c.then((x) => x.close(), () => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}
