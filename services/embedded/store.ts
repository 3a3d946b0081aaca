/**
 * The embedded default's store connector: without `--store-endpoints`, the
 * single-node store in process under `<data-dir>/store` (its request handlers
 * called directly, its applied revisions as the revision feed); with them, the
 * remote store cluster like any replica.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { openStore, type StoreConnector } from "../apiserver/server/store-connection.ts";
import { EmbeddedKv } from "../apiserver/storage/embedded-kv.ts";
import { openEmbeddedStore } from "../store/embedded.ts";

export const connectEmbeddedOrRemote: StoreConnector = async (opts) => {
  if (opts.endpoints.length > 0) return openStore(opts);
  const dir = join(opts.dataDir, "store");
  await mkdir(dir, { recursive: true });
  const store = await openEmbeddedStore(dir, opts.log);
  const kv = new EmbeddedKv(store, { closeStore: true });
  return { kv, feed: kv.feed, description: `embedded store in ${dir}`, close: () => kv.close() };
};
