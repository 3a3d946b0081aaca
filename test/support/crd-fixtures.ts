/**
 * CustomResourceDefinition fixtures for the custom resource tests, written with
 * the profile's group and extension names, and a helper that waits until a CRD's
 * resource answers on a replica.
 */
import type { PlatformProfile } from "../../shared/platform/index.ts";
import type { HttpsClient } from "./https-client.ts";

export const CRD_GROUP = "stable.example.com";

export function crdPath(profile: PlatformProfile, name = ""): string {
  return `/apis/${profile.group("apiextensions")}/v1/customresourcedefinitions${name ? `/${name}` : ""}`;
}

/** A CronTab-like namespaced CRD with status and scale subresources, printer columns and CEL rules. */
export function cronTabCrd(profile: PlatformProfile, overrides: { plural?: string; singular?: string; kind?: string; scope?: "Namespaced" | "Cluster" } = {}): Record<string, unknown> {
  const plural = overrides.plural ?? "crontabs";
  const kind = overrides.kind ?? "CronTab";
  const x = profile.ext;
  return {
    apiVersion: profile.apiVersion("apiextensions", "v1"),
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: overrides.scope ?? "Namespaced",
      names: { plural, singular: overrides.singular ?? kind.toLowerCase(), kind, shortNames: [`${plural.slice(0, 2)}x`], categories: ["all"] },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" } },
          additionalPrinterColumns: [
            { name: "Spec", type: "string", jsonPath: ".spec.cronSpec" },
            { name: "Replicas", type: "integer", jsonPath: ".spec.replicas" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  [x.validations]: [{ rule: "self.replicas <= self.maxReplicas", message: "replicas must not exceed maxReplicas", fieldPath: ".replicas" }],
                  properties: {
                    cronSpec: { type: "string", pattern: "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$" },
                    image: { type: "string", default: "busybox" },
                    replicas: { type: "integer", minimum: 0, maximum: 100, default: 1 },
                    maxReplicas: { type: "integer", default: 10 },
                    mode: { type: "string", enum: ["Fast", "Slow"] },
                    port: { [x.intOrString]: true },
                    extra: { type: "object", [x.preserveUnknownFields]: true },
                    ports: {
                      type: "array",
                      [x.listType]: "map",
                      [x.listMapKeys]: ["name"],
                      items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } },
                    },
                    tags: { type: "array", items: { type: "string" } },
                  },
                },
                status: { type: "object", properties: { replicas: { type: "integer" }, selector: { type: "string" } } },
              },
            },
          },
        },
      ],
    },
  };
}

/** Polls until `path` answers something other than 404 (the CRD is served), or fails after `timeoutMs`. */
export async function waitServed(client: HttpsClient, path: string, timeoutMs = 5000): Promise<number> {
  const start = Date.now();
  for (;;) {
    const res = await client.get(path);
    if (res.status !== 404) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`${path} still 404 after ${timeoutMs} ms: ${res.text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
