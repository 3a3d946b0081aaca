import { describe, expect, it } from "vitest";
import { kinds as appsV1Kinds } from "../api/groups/apps-v1.ts";
import { kinds as coreV1Kinds } from "../api/groups/core-v1.ts";
import { kinds as policyV1Kinds } from "../api/groups/policy-v1.ts";
import { StrategicMergeError, strategicMergePatch } from "./strategic-merge.ts";
import type { KindDefinition, Schema } from "./types.ts";
import { cloneValue } from "./values.ts";

function kindSchema(list: KindDefinition[], kind: string): Schema {
  const def = list.find((k) => k.kind === kind);
  if (!def) throw new Error(`no kind ${kind}`);
  return def.schema;
}

const POD = kindSchema(coreV1Kinds, "Pod");
const SERVICE_ACCOUNT = kindSchema(coreV1Kinds, "ServiceAccount");
const DEPLOYMENT = kindSchema(appsV1Kinds, "Deployment");
const PDB = kindSchema(policyV1Kinds, "PodDisruptionBudget");

type Obj = Record<string, unknown>;
type Edit = (o: Obj) => void;

/** Walks a dotted path (`spec.containers.0.env`) to the value there. */
function at(o: unknown, path: string): Obj & unknown[] {
  let v: unknown = o;
  for (const part of path.split(".")) v = (v as Record<string, unknown>)[part];
  return v as Obj & unknown[];
}

function deepFreeze<T>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

const basePod: Obj = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", labels: { app: "web", tier: "fe" }, finalizers: ["a/one", "a/two"] },
  spec: {
    containers: [
      {
        name: "app",
        image: "app:1",
        ports: [
          { containerPort: 80, protocol: "TCP" },
          { containerPort: 443, protocol: "TCP" },
        ],
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "2" },
        ],
        resources: { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "500m" }, claims: [{ name: "gpu" }] },
      },
      { name: "sidecar", image: "side:1" },
    ],
    volumes: [
      { name: "data", emptyDir: {} },
      { name: "cfg", configMap: { name: "cfg", defaultMode: 420 } },
    ],
    tolerations: [
      { key: "k1", operator: "Exists" },
      { key: "k2", operator: "Exists" },
    ],
    imagePullSecrets: [{ name: "reg1" }],
    nodeSelector: { disk: "ssd", zone: "a" },
  },
};

const baseDeployment: Obj = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "web" } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "app", image: "app:1" }] } },
  },
};

interface Case {
  name: string;
  schema: Schema;
  original: Obj;
  patch: unknown;
  /** Turns a copy of the original into the expected result. */
  expect: Edit;
}

const containers = (o: Obj): Obj[] => at(o, "spec.containers") as unknown as Obj[];

const CASES: Case[] = [
  // ---- containers, merged by name ----
  {
    name: "containers: update the image of one container",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", image: "app:2" }] } },
    expect: (o) => void (containers(o)[0].image = "app:2"),
  },
  {
    name: "containers: a new container goes first (no $setElementOrder)",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "log", image: "log:1" }] } },
    expect: (o) => void containers(o).unshift({ name: "log", image: "log:1" }),
  },
  {
    name: "containers: $patch: delete removes the item with that key",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "sidecar", $patch: "delete" }] } },
    expect: (o) => void containers(o).splice(1, 1),
  },
  {
    name: "containers: delete of an absent key is a no-op",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "nope", $patch: "delete" }] } },
    expect: () => {},
  },
  {
    name: "containers: update, add and delete in one patch",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", image: "app:3" }, { name: "log", image: "log:1" }, { name: "sidecar", $patch: "delete" }] } },
    expect: (o) => {
      o.spec = { ...(o.spec as Obj), containers: [{ ...containers(o)[0], image: "app:3" }, { name: "log", image: "log:1" }] };
    },
  },
  {
    name: "containers: patch order wins over live order for the items it names",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "sidecar", image: "side:2" }, { name: "app", image: "app:2" }] } },
    expect: (o) => {
      const [app, side] = containers(o);
      (o.spec as Obj).containers = [{ ...side, image: "side:2" }, { ...app, image: "app:2" }];
    },
  },
  // ---- nested lists and maps inside a merged item ----
  {
    name: "ports: merged by containerPort (new first, update in place)",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", ports: [{ containerPort: 443, name: "https" }, { containerPort: 8080, protocol: "TCP" }] }] } },
    expect: (o) => {
      containers(o)[0].ports = [
        { containerPort: 80, protocol: "TCP" },
        { containerPort: 443, protocol: "TCP", name: "https" },
        { containerPort: 8080, protocol: "TCP" },
      ];
    },
  },
  {
    name: "env: merged by name, new entries after the ones the patch names",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", env: [{ name: "B", value: "3" }, { name: "C", value: "x" }] }] } },
    expect: (o) => {
      containers(o)[0].env = [
        { name: "A", value: "1" },
        { name: "B", value: "3" },
        { name: "C", value: "x" },
      ];
    },
  },
  {
    name: "env: null inside a merged item deletes the key (value → valueFrom)",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", env: [{ name: "A", value: null, valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] }] } },
    expect: (o) => {
      containers(o)[0].env = [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }, { name: "B", value: "2" }];
    },
  },
  {
    name: "env: $patch: delete by name",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", env: [{ name: "A", $patch: "delete" }] }] } },
    expect: (o) => void (containers(o)[0].env = [{ name: "B", value: "2" }]),
  },
  {
    name: "resources: nested maps merge inside a merged container; null deletes",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", resources: { limits: { memory: "2Gi" }, requests: null } }] } },
    expect: (o) => void (containers(o)[0].resources = { limits: { cpu: "1", memory: "2Gi" }, claims: [{ name: "gpu" }] }),
  },
  {
    name: "resources.claims: list type map without a patch strategy is replaced",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", resources: { claims: [{ name: "fpga" }] } }] } },
    expect: (o) => void ((containers(o)[0].resources as Obj).claims = [{ name: "fpga" }]),
  },
  {
    name: "resources: $patch: delete on a map leaves an empty map",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "app", resources: { $patch: "delete" } }] } },
    expect: (o) => void (containers(o)[0].resources = {}),
  },
  // ---- volumes, merge + retainKeys ----
  {
    name: "volumes: $retainKeys switches the volume source",
    schema: POD,
    original: basePod,
    patch: { spec: { volumes: [{ name: "cfg", $retainKeys: ["name", "secret"], secret: { secretName: "s" } }] } },
    expect: (o) => void (at(o, "spec.volumes")[1] = { name: "cfg", secret: { secretName: "s" } }),
  },
  {
    name: "volumes: without $retainKeys both sources remain (merge only)",
    schema: POD,
    original: basePod,
    patch: { spec: { volumes: [{ name: "cfg", secret: { secretName: "s" } }] } },
    expect: (o) => void (at(o, "spec.volumes")[1] = { name: "cfg", configMap: { name: "cfg", defaultMode: 420 }, secret: { secretName: "s" } }),
  },
  {
    name: "volumes: a new volume by name",
    schema: POD,
    original: basePod,
    patch: { spec: { volumes: [{ name: "tmp", emptyDir: { medium: "Memory" } }] } },
    expect: (o) => void at(o, "spec.volumes").unshift({ name: "tmp", emptyDir: { medium: "Memory" } }),
  },
  // ---- lists without merge strategy ----
  {
    name: "tolerations: atomic, replaced whole",
    schema: POD,
    original: basePod,
    patch: { spec: { tolerations: [{ key: "k3", operator: "Exists" }] } },
    expect: (o) => void ((o.spec as Obj).tolerations = [{ key: "k3", operator: "Exists" }]),
  },
  {
    name: "imagePullSecrets: merged by name",
    schema: POD,
    original: basePod,
    patch: { spec: { imagePullSecrets: [{ name: "reg2" }] } },
    expect: (o) => void ((o.spec as Obj).imagePullSecrets = [{ name: "reg2" }, { name: "reg1" }]),
  },
  {
    name: "serviceaccount secrets: merged by name",
    schema: SERVICE_ACCOUNT,
    original: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa" }, secrets: [{ name: "t1" }], imagePullSecrets: [{ name: "r1" }] },
    patch: { secrets: [{ name: "t1", namespace: "ns" }, { name: "t2" }], imagePullSecrets: [{ name: "r2" }] },
    expect: (o) => {
      o.secrets = [{ name: "t1", namespace: "ns" }, { name: "t2" }];
      o.imagePullSecrets = [{ name: "r2" }];
    },
  },
  // ---- primitive lists ----
  {
    name: "finalizers: merged as a set, no duplicates",
    schema: POD,
    original: basePod,
    patch: { metadata: { finalizers: ["a/two", "a/three"] } },
    expect: (o) => void ((o.metadata as Obj).finalizers = ["a/one", "a/two", "a/three"]),
  },
  {
    name: "finalizers: a new value goes first",
    schema: POD,
    original: basePod,
    patch: { metadata: { finalizers: ["a/zero"] } },
    expect: (o) => void ((o.metadata as Obj).finalizers = ["a/zero", "a/one", "a/two"]),
  },
  {
    name: "finalizers: $deleteFromPrimitiveList removes values",
    schema: POD,
    original: basePod,
    patch: { metadata: { "$deleteFromPrimitiveList/finalizers": ["a/one", "absent"] } },
    expect: (o) => void ((o.metadata as Obj).finalizers = ["a/two"]),
  },
  {
    name: "finalizers: add and delete in one patch",
    schema: POD,
    original: basePod,
    patch: { metadata: { finalizers: ["a/three"], "$deleteFromPrimitiveList/finalizers": ["a/one"] } },
    expect: (o) => void ((o.metadata as Obj).finalizers = ["a/three", "a/two"]),
  },
  {
    name: "finalizers: $deleteFromPrimitiveList on an absent list adds nothing",
    schema: POD,
    original: { metadata: { name: "x" } },
    patch: { metadata: { "$deleteFromPrimitiveList/finalizers": ["a/one"] } },
    expect: () => {},
  },
  {
    name: "finalizers: null deletes the list",
    schema: POD,
    original: basePod,
    patch: { metadata: { finalizers: null } },
    expect: (o) => void delete (o.metadata as Obj).finalizers,
  },
  // ---- $setElementOrder ----
  {
    name: "$setElementOrder/containers: reorders without changes",
    schema: POD,
    original: basePod,
    patch: { spec: { "$setElementOrder/containers": [{ name: "sidecar" }, { name: "app" }] } },
    expect: (o) => void containers(o).reverse(),
  },
  {
    name: "$setElementOrder/containers: places a new container",
    schema: POD,
    original: basePod,
    patch: { spec: { "$setElementOrder/containers": [{ name: "app" }, { name: "log" }, { name: "sidecar" }], containers: [{ name: "log", image: "log:1" }] } },
    expect: (o) => void containers(o).splice(1, 0, { name: "log", image: "log:1" }),
  },
  {
    name: "$setElementOrder/containers: a live item it does not name keeps its place",
    schema: POD,
    original: { spec: { containers: [{ name: "app" }, { name: "mesh" }, { name: "sidecar" }] } },
    patch: { spec: { "$setElementOrder/containers": [{ name: "sidecar" }, { name: "app" }] } },
    expect: (o) => void ((o.spec as Obj).containers = [{ name: "mesh" }, { name: "sidecar" }, { name: "app" }]),
  },
  {
    name: "$setElementOrder on a list absent from the original: taken as is (only $patch maps are stripped)",
    schema: POD,
    original: { spec: {} },
    patch: { spec: { "$setElementOrder/containers": [{ name: "b" }, { name: "a" }], containers: [{ name: "b" }, { name: "a", $retainKeys: ["name"] }] } },
    expect: (o) => void ((o.spec as Obj).containers = [{ name: "b" }, { name: "a", $retainKeys: ["name"] }]),
  },
  {
    name: "a list absent from the original drops its $patch items",
    schema: POD,
    original: { spec: {} },
    patch: { spec: { containers: [{ name: "a" }, { name: "b", $patch: "delete" }] } },
    expect: (o) => void ((o.spec as Obj).containers = [{ name: "a" }]),
  },
  {
    name: "$setElementOrder/finalizers: orders a primitive list",
    schema: POD,
    original: basePod,
    patch: { metadata: { "$setElementOrder/finalizers": ["a/two", "a/one"] } },
    expect: (o) => void ((o.metadata as Obj).finalizers = ["a/two", "a/one"]),
  },
  // ---- $patch: replace ----
  {
    name: "labels: $patch: replace on a map",
    schema: POD,
    original: basePod,
    patch: { metadata: { labels: { $patch: "replace", app: "api" } } },
    expect: (o) => void ((o.metadata as Obj).labels = { app: "api" }),
  },
  {
    name: "nodeSelector: merges key by key (map type is not a patch strategy)",
    schema: POD,
    original: basePod,
    patch: { spec: { nodeSelector: { zone: "b", gpu: "yes" } } },
    expect: (o) => void ((o.spec as Obj).nodeSelector = { disk: "ssd", zone: "b", gpu: "yes" }),
  },
  {
    name: "nodeSelector: $patch: replace",
    schema: POD,
    original: basePod,
    patch: { spec: { nodeSelector: { $patch: "replace", zone: "b" } } },
    expect: (o) => void ((o.spec as Obj).nodeSelector = { zone: "b" }),
  },
  {
    name: "nodeSelector: $patch: delete empties the map",
    schema: POD,
    original: basePod,
    patch: { spec: { nodeSelector: { $patch: "delete" } } },
    expect: (o) => void ((o.spec as Obj).nodeSelector = {}),
  },
  {
    name: "containers: {$patch: replace} replaces the merged list",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ name: "only", image: "only:1" }, { $patch: "replace" }] } },
    expect: (o) => void ((o.spec as Obj).containers = [{ name: "only", image: "only:1" }]),
  },
  {
    name: "containers: [{$patch: replace}] alone empties the list",
    schema: POD,
    original: basePod,
    patch: { spec: { containers: [{ $patch: "replace" }] } },
    expect: (o) => void ((o.spec as Obj).containers = []),
  },
  {
    name: "$patch: replace at the root replaces the object",
    schema: POD,
    original: basePod,
    patch: { $patch: "replace", metadata: { name: "new" } },
    expect: (o) => {
      for (const k of Object.keys(o)) delete o[k];
      o.metadata = { name: "new" };
    },
  },
  {
    name: "patchStrategy replace on a map field (PDB selector) replaces it",
    schema: PDB,
    original: { spec: { selector: { matchLabels: { app: "web" } }, minAvailable: 1 } },
    patch: { spec: { selector: { matchExpressions: [{ key: "app", operator: "Exists" }] } } },
    expect: (o) => void ((o.spec as Obj).selector = { matchExpressions: [{ key: "app", operator: "Exists" }] }),
  },
  // ---- Deployment strategy (retainKeys) ----
  {
    name: "strategy: RollingUpdate → Recreate with $retainKeys drops rollingUpdate",
    schema: DEPLOYMENT,
    original: baseDeployment,
    patch: { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
    expect: (o) => void ((o.spec as Obj).strategy = { type: "Recreate" }),
  },
  {
    name: "strategy: without $retainKeys the other keys stay",
    schema: DEPLOYMENT,
    original: baseDeployment,
    patch: { spec: { strategy: { type: "Recreate" } } },
    expect: (o) => void (((o.spec as Obj).strategy as Obj).type = "Recreate"),
  },
  {
    name: "strategy: null for rollingUpdate removes it too",
    schema: DEPLOYMENT,
    original: baseDeployment,
    patch: { spec: { strategy: { type: "Recreate", rollingUpdate: null } } },
    expect: (o) => void ((o.spec as Obj).strategy = { type: "Recreate" }),
  },
  {
    name: "template containers merge inside the Deployment",
    schema: DEPLOYMENT,
    original: baseDeployment,
    patch: { spec: { replicas: 3, template: { spec: { containers: [{ name: "app", image: "app:2" }] } } } },
    expect: (o) => {
      (o.spec as Obj).replicas = 3;
      at(o, "spec.template.spec.containers")[0] = { name: "app", image: "app:2" };
    },
  },
  // ---- null and plain maps ----
  {
    name: "null deletes a map key; null for an absent key is dropped",
    schema: POD,
    original: basePod,
    patch: { metadata: { labels: { tier: null, absent: null } } },
    expect: (o) => void ((o.metadata as Obj).labels = { app: "web" }),
  },
  {
    name: "a new map keeps its values but not its nulls",
    schema: POD,
    original: basePod,
    patch: { metadata: { annotations: { a: "1", b: null } } },
    expect: (o) => void ((o.metadata as Obj).annotations = { a: "1" }),
  },
  {
    name: "a value of another kind replaces the original one",
    schema: POD,
    original: { metadata: { name: "x", labels: { a: "1" } } },
    patch: { metadata: { labels: "oops" } },
    expect: (o) => void ((o.metadata as Obj).labels = "oops"),
  },
  {
    name: "an empty patch changes nothing",
    schema: POD,
    original: basePod,
    patch: {},
    expect: () => {},
  },
  // ---- unknown fields pass through ----
  {
    name: "unknown fields pass through (new keys, in items, merged maps)",
    schema: POD,
    original: { metadata: { name: "x" }, spec: { extra: { a: 1, list: [1, 2] }, containers: [{ name: "app" }] } },
    patch: { spec: { fooBar: { x: 1 }, extra: { b: 2, list: [3] }, containers: [{ name: "app", madeUp: [1, 2] }] } },
    expect: (o) => {
      const spec = o.spec as Obj;
      spec.extra = { a: 1, b: 2, list: [3] };
      spec.fooBar = { x: 1 };
      spec.containers = [{ name: "app", madeUp: [1, 2] }];
    },
  },
];

/**
 * What `kubectl apply` sends: a three-way patch from the last-applied
 * configuration, with `$setElementOrder` for every merged list it touches and
 * `$retainKeys` for retainKeys fields.
 */
const APPLY_CASES: Case[] = [
  {
    name: "apply: change an image and drop env (last-applied had it); a server-added container stays last",
    schema: POD,
    original: {
      spec: {
        containers: [
          { name: "app", image: "app:1", env: [{ name: "A", value: "1" }], imagePullPolicy: "IfNotPresent" },
          { name: "sidecar", image: "side:1" },
          { name: "mesh", image: "mesh:1" },
        ],
      },
    },
    patch: { spec: { "$setElementOrder/containers": [{ name: "app" }, { name: "sidecar" }], containers: [{ name: "app", image: "app:2", env: null }] } },
    expect: (o) => {
      const c = containers(o);
      c[0] = { name: "app", image: "app:2", imagePullPolicy: "IfNotPresent" };
    },
  },
  {
    name: "apply: reorder containers; a server-only one keeps its place after its live neighbour",
    schema: POD,
    original: { spec: { containers: [{ name: "app" }, { name: "sidecar" }, { name: "mesh" }] } },
    patch: { spec: { "$setElementOrder/containers": [{ name: "sidecar" }, { name: "app" }], containers: [{ name: "app", image: "app:2" }] } },
    expect: (o) => void ((o.spec as Obj).containers = [{ name: "sidecar" }, { name: "app", image: "app:2" }, { name: "mesh" }]),
  },
  {
    name: "apply: remove a container the configuration no longer has",
    schema: POD,
    original: basePod,
    patch: { spec: { "$setElementOrder/containers": [{ name: "app" }], containers: [{ name: "sidecar", $patch: "delete" }] } },
    expect: (o) => void containers(o).splice(1, 1),
  },
  {
    name: "apply: switch a volume from configMap to secret ($retainKeys, null for the old source)",
    schema: POD,
    original: basePod,
    patch: {
      spec: {
        "$setElementOrder/volumes": [{ name: "data" }, { name: "cfg" }],
        volumes: [{ name: "cfg", $retainKeys: ["name", "secret"], configMap: null, secret: { secretName: "s" } }],
      },
    },
    expect: (o) => void (at(o, "spec.volumes")[1] = { name: "cfg", secret: { secretName: "s" } }),
  },
  {
    name: "apply: Deployment strategy Recreate on a defaulted RollingUpdate",
    schema: DEPLOYMENT,
    original: baseDeployment,
    patch: { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
    expect: (o) => void ((o.spec as Obj).strategy = { type: "Recreate" }),
  },
  {
    name: "apply: finalizers with $setElementOrder and $deleteFromPrimitiveList; a server-added one stays",
    schema: POD,
    original: { metadata: { name: "x", finalizers: ["a/one", "a/two", "server/x"] } },
    patch: {
      metadata: {
        "$setElementOrder/finalizers": ["a/two", "a/three"],
        "$deleteFromPrimitiveList/finalizers": ["a/one"],
        finalizers: ["a/three"],
      },
    },
    expect: (o) => void ((o.metadata as Obj).finalizers = ["a/two", "a/three", "server/x"]),
  },
  {
    name: "apply: labels and annotations by key; removed label is null",
    schema: DEPLOYMENT,
    original: { ...baseDeployment, metadata: { name: "web", labels: { app: "web", old: "x" }, annotations: { "note/a": "1" } } },
    patch: { metadata: { labels: { old: null, team: "t" }, annotations: { "note/a": "2" } } },
    expect: (o) => void (o.metadata = { name: "web", labels: { app: "web", team: "t" }, annotations: { "note/a": "2" } }),
  },
  {
    name: "apply: container port added with $setElementOrder by containerPort",
    schema: POD,
    original: basePod,
    patch: {
      spec: {
        "$setElementOrder/containers": [{ name: "app" }, { name: "sidecar" }],
        containers: [
          {
            name: "app",
            "$setElementOrder/ports": [{ containerPort: 80 }, { containerPort: 443 }, { containerPort: 9090 }],
            ports: [{ containerPort: 9090, protocol: "TCP" }],
          },
        ],
      },
    },
    expect: (o) => void (containers(o)[0].ports as unknown[]).push({ containerPort: 9090, protocol: "TCP" }),
  },
];

describe("strategicMergePatch", () => {
  it.each([...CASES, ...APPLY_CASES].map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const original = deepFreeze(cloneValue(c.original));
    const patch = deepFreeze(cloneValue(c.patch));
    const expected = cloneValue(c.original);
    c.expect(expected);
    expect(strategicMergePatch(c.schema, original, patch)).toEqual(expected);
  });

  it("never returns the inputs' objects", () => {
    const original = cloneValue(basePod);
    const patch = { metadata: { labels: { x: "y" } }, spec: { extra: { a: 1 } } };
    const out = strategicMergePatch(POD, original, patch) as Obj;
    at(out, "metadata.labels").app = "changed";
    at(out, "spec.extra").a = 2;
    at(out, "spec.containers").pop();
    expect(original).toEqual(basePod);
    expect(patch.spec.extra.a).toBe(1);
  });

  it("treats a missing original as an empty object and a null patch as no change", () => {
    expect(strategicMergePatch(POD, undefined, { metadata: { name: "x", labels: { a: null } } })).toEqual({ metadata: { name: "x", labels: {} } });
    expect(strategicMergePatch(POD, basePod, null)).toEqual(basePod);
  });

  it("keeps a __proto__ key as data", () => {
    const patch = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":true}}}}') as unknown;
    const out = strategicMergePatch(POD, basePod, patch) as Obj;
    expect(Object.getPrototypeOf(at(out, "metadata.labels"))).toBe(Object.prototype);
    expect(Object.keys(at(out, "metadata.labels"))).toContain("__proto__");
  });

  it("is the same as the patch applied twice for idempotent patches", () => {
    const patch = { spec: { containers: [{ name: "app", image: "app:2" }], "$setElementOrder/containers": [{ name: "app" }, { name: "sidecar" }] } };
    const once = strategicMergePatch(POD, basePod, patch);
    expect(strategicMergePatch(POD, once, patch)).toEqual(once);
  });
});

describe("strategicMergePatch errors", () => {
  const fin0 = { metadata: { name: "x", finalizers: [] } };
  it.each<[string, Schema, Obj, unknown, string | RegExp, number]>([
    ["$patch with an unknown value on a map", POD, basePod, { metadata: { labels: { $patch: "bogus" } } }, "unknown patch type: bogus in map: map[$patch:bogus]", 500],
    [
      "$patch with an unknown value in a list item",
      POD,
      basePod,
      { spec: { containers: [{ name: "app", $patch: "bogus" }] } },
      "unknown patch type: bogus in map: map[$patch:bogus name:app]",
      500,
    ],
    ["$patch: merge on a map is rejected", POD, basePod, { metadata: { labels: { $patch: "merge", x: "y" } } }, "unknown patch type: merge in map: map[$patch:merge x:y]", 500],
    ["$patch: merge in a list is rejected", POD, basePod, { spec: { containers: [{ name: "app", $patch: "merge" }] } }, "merging lists cannot yet be specified in the patch", 500],
    ["a merged item without its key", POD, basePod, { spec: { containers: [{ image: "x" }] } }, "map: map[image:x] does not contain declared merge key: name", 500],
    [
      "a volume without its name",
      POD,
      basePod,
      { spec: { volumes: [{ hostPath: { path: "/var/lib/kubelet/pods" } }] } },
      "map: map[hostPath:map[path:/var/lib/kubelet/pods]] does not contain declared merge key: name",
      500,
    ],
    ["$patch: delete without the key", POD, basePod, { spec: { containers: [{ $patch: "delete" }] } }, "map: map[$patch:delete] does not contain declared merge key: name", 500],
    ["a port without containerPort", POD, basePod, { spec: { containers: [{ name: "app", ports: [{ name: "http", port: 80 }] }] } }, "map: map[name:http port:80] does not contain declared merge key: containerPort", 500],
    ["$retainKeys that is not a list", DEPLOYMENT, baseDeployment, { spec: { strategy: { $retainKeys: "type", type: "Recreate" } } }, "invalid patch format of retainKeys", 400],
    ["$retainKeys missing a key the patch sets", DEPLOYMENT, baseDeployment, { spec: { strategy: { $retainKeys: ["rollingUpdate"], type: "Recreate" } } }, "invalid patch format of retainKeys", 400],
    ["$deleteFromPrimitiveList without a field", POD, basePod, { metadata: { $deleteFromPrimitiveListfinalizers: ["a/one"] } }, "invalid patch format of primitive list", 400],
    ["$setElementOrder without a field", POD, basePod, { spec: { $setElementOrdercontainers: [] } }, "invalid patch format of setElementOrder list", 400],
    ["$setElementOrder that is not a list", POD, basePod, { spec: { "$setElementOrder/containers": "app" } }, "expected a []interface {}, but received a string", 500],
    [
      "$setElementOrder that does not match the patch list",
      POD,
      basePod,
      { spec: { "$setElementOrder/containers": [{ name: "app" }, { name: "sidecar" }], containers: [{ name: "sidecar", image: "s" }, { name: "app", image: "a" }] } },
      /^the order in patch list:\n.*\n doesn't match \$setElementOrder list:\n/,
      500,
    ],
    ["a list of lists", POD, fin0, { metadata: { finalizers: [["a"]] } }, "lists of lists are not supported", 422],
    ["list items of mixed kinds", POD, basePod, { metadata: { finalizers: [1] } }, "list element types are not identical: [[a/one a/two] [1]]", 500],
    ["a patch that is not an object", POD, basePod, [{ op: "add" }], "json: cannot unmarshal array into Go value of type map[string]interface {}", 400],
    ["an original that is not an object", POD, [] as unknown as Obj, {}, "invalid JSON document", 400],
  ])("%s", (_name, schema, original, patch, message, code) => {
    let caught: unknown;
    try {
      strategicMergePatch(schema, original, patch);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(StrategicMergeError);
    const err = caught as StrategicMergeError;
    if (typeof message === "string") expect(err.message).toBe(message);
    else expect(err.message).toMatch(message);
    expect(err.code).toBe(code);
  });

  it("does not change its inputs when it fails", () => {
    const original = deepFreeze(cloneValue(basePod));
    expect(() => strategicMergePatch(POD, original, deepFreeze({ spec: { containers: [{ name: "app", image: "x" }, { image: "y" }] } }))).toThrow(StrategicMergeError);
  });
});
