/**
 * Lease heartbeats: one Lease per node in the node-lease namespace, named after the
 * node, held by it (`holderIdentity`), `leaseDurationSeconds` from the flag, owned by
 * the Node object once it exists. Every renew interval (duration × 0.25) the agent
 * updates the lease it wrote last (no read first); when that fails it reads or creates
 * the lease again, retrying with waits of 200 ms doubling to at most 7 s until the API
 * answers, then updates it. `onRenew` reports each successful write (tests, metrics).
 */
import { isStatusError } from "../../shared/api/status.ts";
import type { ApiObject, ObjectClient, ResourceRef } from "../../shared/client/object-client.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import { renewIntervalMs, retryDelayMs } from "./backoff.ts";
import { Sleeper } from "./sleeper.ts";

/** Update attempts per renewal before falling back to reading the lease. */
const MAX_UPDATE_RETRIES = 5;

export interface LeaseControllerOptions {
  nodeName: string;
  namespace: string;
  leases: ResourceRef;
  nodes: ResourceRef;
  durationSeconds: number;
  log: LogFn;
  onRenew?: (renewTime: string) => void;
}

/** The API's MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, "000Z");
}

export class LeaseController {
  private latest: ApiObject | undefined;
  private readonly sleeper = new Sleeper();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: () => ObjectClient,
    private readonly o: LeaseControllerOptions,
  ) {}

  start(): void {
    this.loop ??= (async () => {
      while (!this.sleeper.isStopped) {
        await this.sync();
        await this.sleeper.sleep(renewIntervalMs(this.o.durationSeconds));
      }
    })();
  }

  async stop(): Promise<void> {
    this.sleeper.stop();
    await this.loop;
  }

  /** One renewal as the platform's lease controller does it. */
  async sync(): Promise<void> {
    if (this.latest && (await this.retryUpdate(this.latest))) return;
    const ensured = await this.backoffEnsure();
    if (!ensured) return;
    this.latest = ensured.lease;
    if (!ensured.created) await this.retryUpdate(ensured.lease);
  }

  private async ownerReferences(existing: ApiObject | undefined): Promise<unknown[] | undefined> {
    const refs = existing?.metadata.ownerReferences;
    if (refs && refs.length > 0) return refs;
    try {
      const node = await this.client().get(this.o.nodes, this.o.nodeName);
      return [{ apiVersion: "v1", kind: "Node", name: this.o.nodeName, uid: node.metadata.uid }];
    } catch {
      return undefined; // the Node is not there (yet): the next renewal sets the owner
    }
  }

  private async desired(base: ApiObject | undefined): Promise<ApiObject> {
    const owners = await this.ownerReferences(base);
    // managedFields stay out of the body: the server keeps the stored ones when an update omits them, and each renewal is smaller to send and to parse.
    const { managedFields: _managedFields, ...kept } = base?.metadata ?? { name: this.o.nodeName, namespace: this.o.namespace };
    const metadata: ApiObject["metadata"] = { ...kept };
    if (owners) metadata.ownerReferences = owners as ApiObject["metadata"]["ownerReferences"];
    return {
      apiVersion: `${this.o.leases.group}/${this.o.leases.version}`,
      kind: "Lease",
      metadata,
      spec: { ...((base?.spec as Record<string, unknown>) ?? {}), holderIdentity: this.o.nodeName, leaseDurationSeconds: this.o.durationSeconds, renewTime: microTime(Date.now()) },
    };
  }

  /** Reads the lease or creates it; retries with backoff until it succeeds or the controller stops. */
  private async backoffEnsure(): Promise<{ lease: ApiObject; created: boolean } | undefined> {
    for (let failures = 0; ; ) {
      try {
        return await this.ensure();
      } catch (err) {
        failures++;
        const wait = retryDelayMs(failures);
        this.o.log("warn", "failed to ensure lease exists, will retry", { interval: `${wait}ms`, error: (err as Error).message });
        if (!(await this.sleeper.sleep(wait))) return undefined;
      }
    }
  }

  private async ensure(): Promise<{ lease: ApiObject; created: boolean }> {
    try {
      return { lease: await this.client().get(this.o.leases, this.o.nodeName, { namespace: this.o.namespace }), created: false };
    } catch (err) {
      if (!isStatusError(err, "NotFound")) throw err;
    }
    const lease = await this.client().create(this.o.leases, await this.desired(undefined), { namespace: this.o.namespace });
    this.o.onRenew?.(String((lease.spec as { renewTime?: string }).renewTime));
    return { lease, created: true };
  }

  /** Up to five updates; a conflict reads the lease again first. True when one succeeded. */
  private async retryUpdate(base: ApiObject): Promise<boolean> {
    let current = base;
    for (let i = 0; i < MAX_UPDATE_RETRIES && !this.sleeper.isStopped; i++) {
      try {
        const lease = await this.client().update(this.o.leases, await this.desired(current), { namespace: this.o.namespace });
        this.latest = lease;
        this.o.onRenew?.(String((lease.spec as { renewTime?: string }).renewTime));
        return true;
      } catch (err) {
        this.o.log("warn", "failed to update lease", { error: (err as Error).message });
        if (isStatusError(err, "Conflict")) {
          const ensured = await this.backoffEnsure();
          if (!ensured) return false;
          current = ensured.lease;
        }
      }
    }
    return false;
  }
}
