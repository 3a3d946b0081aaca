/**
 * apidiscovery v2 and v2beta1: the aggregated discovery document served at /api
 * and /apis (APIGroupDiscoveryList). Not resource types: the kinds exist only as
 * response bodies, so they are schemas, not `KindDefinition`s. Both versions have
 * the same fields and protobuf field numbers (the platform's apidiscovery
 * generated.proto); only the package and `apiVersion` differ.
 */
import { enumOf, list, named, obj, str, tag } from "../../schema/build.ts";
import type { Schema } from "../../schema/types.ts";
import { listMeta, objectMeta } from "./meta-v1.ts";

export type ApidiscoveryVersion = "v2" | "v2beta1";

/** meta/v1 GroupVersionKind{group 1, version 2, kind 3}. */
export const groupVersionKind = named(
  "meta",
  "v1",
  "GroupVersionKind",
  obj({ group: tag(1, str()), version: tag(2, str()), kind: tag(3, str()) }, { required: ["group", "version", "kind"] }),
);

export interface ApidiscoverySchemas {
  subresource: Schema;
  resource: Schema;
  version: Schema;
  group: Schema;
  groupList: Schema;
}

function build(version: ApidiscoveryVersion): ApidiscoverySchemas {
  const S = (name: string, schema: Schema): Schema => named("apidiscovery", version, name, schema);
  const subresource = S(
    "APISubresourceDiscovery",
    obj(
      {
        subresource: tag(1, str()),
        responseKind: tag(2, groupVersionKind),
        acceptedTypes: tag(3, list(groupVersionKind, { listType: "map", mapKeys: ["group", "version", "kind"] })),
        verbs: tag(4, list(str(), { listType: "set" })),
      },
      { required: ["subresource", "verbs"] },
    ),
  );
  const resource = S(
    "APIResourceDiscovery",
    obj(
      {
        resource: tag(1, str()),
        responseKind: tag(2, groupVersionKind),
        scope: tag(3, enumOf(["Cluster", "Namespaced"])),
        singularResource: tag(4, str()),
        verbs: tag(5, list(str(), { listType: "set" })),
        shortNames: tag(6, list(str(), { listType: "set" })),
        categories: tag(7, list(str(), { listType: "set" })),
        subresources: tag(8, list(subresource, { listType: "map", mapKeys: ["subresource"] })),
      },
      { required: ["resource", "scope", "singularResource", "verbs"] },
    ),
  );
  const versionSchema = S(
    "APIVersionDiscovery",
    obj(
      {
        version: tag(1, str()),
        resources: tag(2, list(resource, { listType: "map", mapKeys: ["resource"] })),
        freshness: tag(3, enumOf(["Current", "Stale"])),
      },
      { required: ["version"] },
    ),
  );
  const group = S(
    "APIGroupDiscovery",
    obj({
      apiVersion: str(),
      kind: str(),
      metadata: tag(1, objectMeta),
      versions: tag(2, list(versionSchema, { listType: "map", mapKeys: ["version"] })),
    }),
  );
  const groupList = S(
    "APIGroupDiscoveryList",
    obj({ apiVersion: str(), kind: str(), metadata: tag(1, listMeta), items: tag(2, list(group, { listType: "atomic" })) }, { required: ["items"] }),
  );
  return { subresource, resource, version: versionSchema, group, groupList };
}

export const apidiscoveryV2 = build("v2");
export const apidiscoveryV2beta1 = build("v2beta1");

export function apidiscoverySchemas(version: ApidiscoveryVersion): ApidiscoverySchemas {
  return version === "v2" ? apidiscoveryV2 : apidiscoveryV2beta1;
}
