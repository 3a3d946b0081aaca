/**
 * The pods bound to this node, kept in step with the API by a reflector on pods with
 * `spec.nodeName=<node>` in all namespaces (the only pods the Node authorizer lets the
 * agent list). Lookups are by namespace and name.
 */
import type { ApiObject, ObjectClient, ResourceRef } from "../../shared/client/object-client.ts";
import { Reflector } from "../../shared/client/reflector.ts";
import type { LogFn } from "../../shared/observability/logger.ts";

const PODS: ResourceRef = { group: "", version: "v1", resource: "pods" };

export class PodSource {
  private readonly pods = new Map<string, ApiObject>();
  private reflector: Reflector | undefined;

  constructor(
    private readonly nodeName: string,
    private readonly log: LogFn,
  ) {}

  private static key(namespace: string, name: string): string {
    return `${namespace}/${name}`;
  }

  /** Starts watching; resolves once the first list arrived. */
  start(client: ObjectClient): Promise<void> {
    this.reflector = new Reflector(
      client,
      PODS,
      {
        replace: (items) => {
          this.pods.clear();
          for (const p of items) this.pods.set(PodSource.key(p.metadata.namespace ?? "", p.metadata.name ?? ""), p);
        },
        event: (type, p) => {
          const k = PodSource.key(p.metadata.namespace ?? "", p.metadata.name ?? "");
          if (type === "DELETED") this.pods.delete(k);
          else this.pods.set(k, p);
        },
      },
      { fieldSelector: `spec.nodeName=${this.nodeName}`, watchTimeoutSeconds: 300, log: (msg, fields) => this.log("warn", msg, fields) },
    );
    return this.reflector.start();
  }

  stop(): void {
    this.reflector?.stop();
  }

  get(namespace: string, name: string): ApiObject | undefined {
    return this.pods.get(PodSource.key(namespace, name));
  }

  list(): ApiObject[] {
    return [...this.pods.values()];
  }
}
