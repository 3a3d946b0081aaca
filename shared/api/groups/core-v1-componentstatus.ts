/**
 * core/v1 ComponentStatus (deprecated since 1.19, still served by release 1.35): the health
 * of the control-plane components (scheduler, controller-manager, etcd-0) as the serving
 * replica probes them when asked. Read-only (get, list); nothing is stored. Protobuf field
 * numbers are the platform's.
 */
import { list, obj, str, tag } from "../../schema/build.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { C } from "./core-v1-common.ts";
import { objectKind } from "./meta-v1.ts";

export const componentCondition = C(
  "ComponentCondition",
  obj(
    {
      type: tag(1, str({ description: "Type of condition: Healthy." })),
      status: tag(2, str({ description: "True, False or Unknown." })),
      message: tag(3, str({ description: "What the probe answered." })),
      error: tag(4, str({ description: "Why the probe failed." })),
    },
    { required: ["type", "status"], description: "A condition of a control-plane component." },
  ),
);

function healthyCell(o: Record<string, unknown>): string {
  const conditions = Array.isArray(o.conditions) ? (o.conditions as Array<Record<string, unknown>>) : [];
  const healthy = conditions.find((c) => c.type === "Healthy");
  return healthy?.status === "True" ? "Healthy" : healthy ? "Unhealthy" : "Unknown";
}

function conditionText(o: Record<string, unknown>, field: "message" | "error"): string {
  const conditions = Array.isArray(o.conditions) ? (o.conditions as Array<Record<string, unknown>>) : [];
  return conditions.map((c) => String(c[field] ?? "")).filter((t) => t !== "").join(", ");
}

export const componentStatusKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "ComponentStatus",
  plural: "componentstatuses",
  singular: "componentstatus",
  namespaced: false,
  shortNames: ["cs"],
  verbs: ["get", "list"],
  schema: C("ComponentStatus", objectKind({ conditions: tag(2, list(componentCondition, { listType: "map", mapKeys: ["type"] })) })),
  protobuf: true,
  tableColumns: [
    { name: "Status", type: "string", description: "Whether the component answered healthy.", cell: healthyCell },
    { name: "Message", type: "string", description: "What the probe answered.", cell: (o) => conditionText(o, "message") },
    { name: "Error", type: "string", description: "Why the probe failed.", cell: (o) => conditionText(o, "error") },
  ],
};
