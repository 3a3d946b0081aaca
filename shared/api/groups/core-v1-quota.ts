/**
 * core/v1 LimitRange and ResourceQuota.
 */
import { enumOf, list, obj, str, tag } from "../../schema/build.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { ageColumn, listAt, objAt } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { C, resourceList } from "./core-v1-common.ts";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// ---- LimitRange ----

export const limitRangeItem = C(
  "LimitRangeItem",
  obj(
    {
      type: tag(1, enumOf(["Pod", "Container", "PersistentVolumeClaim"], { description: "Kind of object the limits apply to." })),
      max: tag(2, resourceList()),
      min: tag(3, resourceList()),
      default: tag(4, resourceList("Default limits.")),
      defaultRequest: tag(5, resourceList("Default requests.")),
      maxLimitRequestRatio: tag(6, resourceList("Maximum limit/request ratio.")),
    },
    { required: ["type"], description: "Limits for one kind of object." },
  ),
);

/** Container items: default limits from max; default requests from the default limits, then from min. */
function defaultLimitRange(lr: Obj): void {
  for (const item of listAt(lr, "spec.limits")) {
    if (!isObj(item) || item.type !== "Container") continue;
    const def = isObj(item.default) ? item.default : {};
    for (const [k, v] of Object.entries(isObj(item.max) ? item.max : {})) if (!(k in def)) def[k] = v;
    const req = isObj(item.defaultRequest) ? item.defaultRequest : {};
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    for (const [k, v] of Object.entries(isObj(item.min) ? item.min : {})) if (!(k in req)) req[k] = v;
    if (Object.keys(def).length > 0) item.default = def;
    if (Object.keys(req).length > 0) item.defaultRequest = req;
  }
}

export const limitRangeKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "LimitRange",
  plural: "limitranges",
  singular: "limitrange",
  namespaced: true,
  shortNames: ["limits"],
  schema: C("LimitRange", objectKind({ spec: tag(2, C("LimitRangeSpec", obj({ limits: tag(1, list(limitRangeItem, { listType: "atomic" })) }, { required: ["limits"] }))) })),
  // No custom columns: the default table (Name, Created At) applies, as on the platform.
  protobuf: true,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaulter: defaultLimitRange,
};

// ---- ResourceQuota ----

const QUOTA_SCOPES = ["Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity", "VolumeAttributesClass"];

export const scopeSelector = C(
  "ScopeSelector",
  obj(
    {
      matchExpressions: tag(
        1,
        list(
          C(
            "ScopedResourceSelectorRequirement",
            obj(
              {
                scopeName: tag(1, enumOf(QUOTA_SCOPES)),
                operator: tag(2, enumOf(["In", "NotIn", "Exists", "DoesNotExist"])),
                values: tag(3, list(str(), { listType: "atomic" })),
              },
              { required: ["scopeName", "operator"] },
            ),
          ),
          { listType: "atomic" },
        ),
      ),
    },
    { mapType: "atomic" },
  ),
);

function quotaCell(o: Obj, limits: boolean): string {
  const hard = objAt(o, "spec.hard");
  const used = objAt(o, "status.used");
  const statusHard = objAt(o, "status.hard");
  return Object.keys(hard)
    .sort()
    .filter((r) => (r.split(".").length > 1 && r.split(".")[0] === "limits") === limits)
    .map((r) => `${r}: ${String(used[r] ?? "0")}/${String(statusHard[r] ?? "0")}`)
    .join(", ");
}

export const resourceQuotaKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "ResourceQuota",
  plural: "resourcequotas",
  singular: "resourcequota",
  namespaced: true,
  shortNames: ["quota"],
  subresources: ["status"],
  schema: C(
    "ResourceQuota",
    objectKind({
      spec: tag(
        2,
        C(
          "ResourceQuotaSpec",
          obj({ hard: tag(1, resourceList("Hard limits.")), scopes: tag(2, list(enumOf(QUOTA_SCOPES), { listType: "atomic" })), scopeSelector: tag(3, scopeSelector) }),
        ),
      ),
      status: tag(3, C("ResourceQuotaStatus", obj({ hard: tag(1, resourceList("Enforced limits.")), used: tag(2, resourceList("Observed usage.")) }))),
    }),
  ),
  tableColumns: [
    ageColumn,
    { name: "Request", type: "string", description: "Used/hard of request quotas.", cell: (o) => quotaCell(o, false) },
    { name: "Limit", type: "string", description: "Used/hard of limit quotas.", cell: (o) => quotaCell(o, true) },
  ],
  protobuf: true,
  allowUnconditionalUpdate: true,
};
