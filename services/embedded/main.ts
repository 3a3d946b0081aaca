/**
 * The single-process default (`npm start`): one process with a single-node store
 * under `--data-dir` (the same Raft code, a group of one), the in-process revision
 * feed, the apiserver on https://127.0.0.1:6443 with generated certificates, and an
 * admin client configuration written to disk. With `--store-endpoints` it is a
 * replica of a store cluster, exactly like services/apiserver/main.ts.
 *
 * The one composition root allowed to import several services (store, apiserver,
 * controller manager), as a one-binary distribution does. Flags and output are the
 * apiserver's (`--help` lists them).
 *
 * The controllers run in process as an ordinary HTTPS client with the admin
 * certificate, under the controller manager's leader lease (the system namespace's
 * controller-manager Lease, the platform's 15/10/2 s timings), so replicas of the
 * embedded default sharing a store run them once, and a controller-manager process
 * beside them takes turns on the same lease. A lost lease stops the controllers and
 * this process campaigns again; it never ends the API server; shutdown releases the
 * lease. The cluster CA signs approved CSRs. Which controllers: controllers.ts.
 */
import { readFileSync } from "node:fs";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { createLogger, logTo } from "../../shared/observability/logger.ts";
import { main as runApiserver } from "../apiserver/main.ts";
import { pkiPaths } from "../apiserver/server/certs.ts";
import { runControllersInBackground } from "../controller-manager/controllers.ts";
import { runControllersUnderLease } from "../controller-manager/embedded-lease.ts";
import { EMBEDDED_CONTROLLERS } from "./controllers.ts";
import { connectEmbeddedOrRemote } from "./store.ts";

runApiserver({
  connect: connectEmbeddedOrRemote,
  onReady: async (ready) => {
    const server = ready.url.replace("//0.0.0.0:", "//127.0.0.1:");
    const client = new HttpsObjectClient({ server, ca: ready.caPem, cert: ready.admin.certPem, key: ready.admin.keyPem, insecureSkipTlsVerify: false });
    const paths = pkiPaths(ready.dataDir);
    const settings = { clusterSigningCertPem: readFileSync(paths.caCert, "utf8"), clusterSigningKeyPem: readFileSync(paths.caKey, "utf8") };
    const log = logTo(createLogger({ component: "controller-manager" }));
    const leased = runControllersUnderLease({
      client,
      profile: ready.profile,
      log,
      // In the background: a refusal (e.g. --authorization-mode=AlwaysDeny) is retried, never fatal to the server.
      start: (identity) =>
        runControllersInBackground(client, { controllers: EMBEDDED_CONTROLLERS, namespaceFinalizer: ready.profile.namespaceFinalizer, profile: ready.profile, settings, identity, log }).stop,
    });
    return {
      async close() {
        await leased.close();
        client.close();
      },
    };
  },
}).catch((err: unknown) => {
  process.stderr.write(`apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
