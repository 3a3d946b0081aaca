/**
 * The embedded default's store connector: without `--store-endpoints`, the
 * single-node store in process under `<data-dir>/store`; with them, the remote
 * store cluster like any replica.
 */
import { openStore, type StoreConnector } from "../apiserver/server/store-connection.ts";

export const connectEmbeddedOrRemote: StoreConnector = (opts) => openStore(opts);
