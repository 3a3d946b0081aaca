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
 */
import { main as runApiserver } from "../apiserver/main.ts";
import { connectEmbeddedOrRemote } from "./store.ts";

runApiserver({
  connect: connectEmbeddedOrRemote,
  // The controller manager's controllers start in `onReady` (API URL and admin credentials) and stop in its close.
}).catch((err: unknown) => {
  process.stderr.write(`apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
