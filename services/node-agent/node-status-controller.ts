/**
 * Registration and node status. Every `--node-status-update-frequency` the agent
 * registers its Node when it is not registered (again after the Node was deleted),
 * probes the container runtime, computes the status and patches `nodes/<name>/status`
 * when it differs from the stored one in anything but heartbeat times, or when the last
 * post is `--node-status-report-frequency` old. Between posts the Lease carries liveness.
 */
import { isStatusError } from "../../shared/api/status.ts";
import type { ApiObject, ObjectClient, ResourceRef } from "../../shared/client/object-client.ts";
import type { LogFn } from "../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import { initialNode, nodeStatus, type MachineFacts, type NodeShape } from "./node-object.ts";
import { apiTime, shouldPostStatus, statusChanged, type Health, type NodeStatusBody } from "./node-status.ts";
import { Sleeper } from "./sleeper.ts";

export const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes" };

export interface NodeStatusControllerOptions {
  profile: PlatformProfile;
  machine: MachineFacts;
  shape: () => NodeShape;
  registerNode: boolean;
  updateFrequencyMs: number;
  reportFrequencyMs: number;
  probe: () => Promise<Health>;
  log: LogFn;
  /** Called after each registration (create, or found existing) and each status post. */
  onRegistered?: (node: ApiObject) => void;
  onStatusPosted?: (status: NodeStatusBody) => void;
}

export class NodeStatusController {
  private registered = false;
  private lastPostMs: number | undefined;
  private readonly sleeper = new Sleeper();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly client: () => ObjectClient,
    private readonly o: NodeStatusControllerOptions,
  ) {}

  get isRegistered(): boolean {
    return this.registered;
  }

  start(): void {
    this.loop ??= (async () => {
      while (!this.sleeper.isStopped) {
        try {
          await this.sync();
        } catch (err) {
          this.o.log("warn", "error updating node status, will retry", { error: (err as Error).message });
        }
        await this.sleeper.sleep(this.o.updateFrequencyMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.sleeper.stop();
    await this.loop;
  }

  /** Creates the Node, or accepts an existing one of the same name. */
  async register(): Promise<boolean> {
    const shape = this.o.shape();
    const node = initialNode(this.o.profile, this.o.machine, shape, await this.o.probe(), apiTime(Date.now()));
    try {
      const created = await this.client().create(NODES, node);
      this.o.log("info", "successfully registered node", { node: shape.name });
      this.registered = true;
      this.o.onRegistered?.(created);
      // A server may drop the status of a created object: post it at once when it is missing.
      if (!(created.status as NodeStatusBody | undefined)?.conditions?.length) {
        await this.client().patch(NODES, shape.name, "strategic", { status: node.status }, { subresource: "status" });
      }
      this.lastPostMs = Date.now();
      return true;
    } catch (err) {
      if (!isStatusError(err, "AlreadyExists")) {
        this.o.log("warn", "unable to register node with API server", { node: shape.name, error: (err as Error).message });
        return false;
      }
    }
    const existing = await this.client().get(NODES, shape.name);
    this.registered = true;
    this.o.onRegistered?.(existing);
    return true;
  }

  async sync(): Promise<void> {
    if (!this.registered && this.o.registerNode && !(await this.register())) return;
    const shape = this.o.shape();
    let node: ApiObject;
    try {
      // From the server's watch cache (resourceVersion 0), as the platform's agent reads its Node each period: no store
      // round trip for a read made every update period that usually ends without a write.
      node = await this.client().get(NODES, shape.name, { resourceVersion: "0" });
    } catch (err) {
      if (isStatusError(err, "NotFound")) {
        this.o.log("warn", "node not found; registering it again", { node: shape.name });
        this.registered = false;
        if (this.o.registerNode) await this.register();
        return;
      }
      throw err;
    }
    const previous = (node.status ?? {}) as NodeStatusBody;
    const nowMs = Date.now();
    const next = nodeStatus(this.o.machine, shape, previous, await this.o.probe(), apiTime(nowMs));
    const changed = statusChanged(previous, next);
    if (!shouldPostStatus({ changed, nowMs, lastPostMs: this.lastPostMs, reportFrequencyMs: this.o.reportFrequencyMs })) return;
    await this.client().patch(NODES, shape.name, "strategic", { status: next }, { subresource: "status" });
    this.lastPostMs = nowMs;
    this.o.onStatusPosted?.(next);
  }
}
