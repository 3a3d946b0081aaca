/**
 * The KvStore and revision feed over a store in the same process (the embedded
 * default and tests): EtcdKv over the store's in-process etcd API, with a
 * FanoutFeed fed by the store's applied revisions instead of the Redis stream. The
 * store is passed in by the composition root (services/embedded/) or a test
 * harness, so this file knows only its shape.
 */
import type { EtcdApi } from "../../../shared/etcd/methods.ts";
import type { StreamEntry } from "../../../shared/stream/revision-entry.ts";
import { EtcdKv } from "./etcd-kv.ts";
import { FanoutFeed } from "./fanout-feed.ts";
import type { RevisionReadBatcherOptions } from "./revision-batcher.ts";

/** What the apiserver needs of an in-process store. */
export interface InProcessStore {
  readonly api: EtcdApi;
  currentRevision(): number;
  onRevision(listener: (entry: StreamEntry) => void): () => void;
  close?(): Promise<void>;
}

export class EmbeddedKv extends EtcdKv {
  readonly feed: FanoutFeed;
  private readonly unsubscribe: () => void;

  /**
   * With `closeStore`, close() also closes the store (a harness that made the store for this client).
   * `revisionReads`: by default a revision read leaves at once when none is in flight, with no
   * regrouping wait (the store batches its reads per turn itself, and one costs little in process); a harness
   * standing in for a remote store may pass the remote default (`{}`).
   */
  constructor(
    private readonly store: InProcessStore,
    private readonly options: { closeStore?: boolean; revisionReads?: RevisionReadBatcherOptions } = {},
  ) {
    super([{ endpoint: "in-process", api: store.api }], { revisionReads: options.revisionReads ?? { endOfTurn: (send) => send(), regroupMaxMs: 0 } });
    this.feed = new FanoutFeed(this);
    this.feed.setLivePosition(store.currentRevision());
    this.unsubscribe = store.onRevision((entry) => this.feed.push(entry));
  }

  /** Stops feeding and closes the client (and the store with `closeStore`). */
  override async close(): Promise<void> {
    this.unsubscribe();
    await super.close();
    if (this.options.closeStore === true) await this.store.close?.();
  }
}
