/**
 * The controller manager's controllers for tests, run in process as an ordinary
 * HTTPS client of a test replica (its admin client certificate, its CA), the same
 * way the single-process default runs them.
 */
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { runControllers, type RunningControllers } from "../../services/controller-manager/controllers.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import type { TestApiserver } from "./apiserver.ts";

export interface TestControllers {
  running: RunningControllers;
  client: HttpsObjectClient;
  stop(): void;
}

/** Starts the controllers (`--controllers` items, default `*`) against `api`; resolves once they are synced. */
export async function startTestControllers(api: Pick<TestApiserver, "replica" | "dir" | "profile">, controllers: string[] = ["*"]): Promise<TestControllers> {
  const pki = await ensurePki(api.dir, { profile: api.profile });
  const client = new HttpsObjectClient({ server: api.replica.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, insecureSkipTlsVerify: false });
  const running = await runControllers(client, { controllers, namespaceFinalizer: api.profile.namespaceFinalizer });
  return {
    running,
    client,
    stop() {
      running.stop();
      client.close();
    },
  };
}
