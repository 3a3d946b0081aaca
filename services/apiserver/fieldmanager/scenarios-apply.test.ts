/**
 * Server-side apply scenarios on real built-in schemas: appliers, conflicts,
 * force, shared ownership and removal of dropped fields.
 */
import { describe, it } from "vitest";
import { fieldPaths } from "./index.ts";
import { runScenario, type Scenario } from "./testing/scenario-harness.ts";

type Obj = Record<string, unknown>;

const meta = (extra: Obj = {}) => ({ name: "web", namespace: "default", ...extra });
const deploy = (spec: Obj, metadata: Obj = {}) => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: meta(metadata), spec });
const cm = (data: Obj, metadata: Obj = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: meta(metadata), data });
const svc = (spec: Obj) => ({ apiVersion: "v1", kind: "Service", metadata: meta(), spec });
const template = (containers: Obj[]) => ({ metadata: { labels: { app: "web" } }, spec: { containers } });
const selector = { matchLabels: { app: "web" } };

const scenarios: Scenario[] = [
  {
    name: "apply creates the object and owns exactly what it set",
    kind: "Deployment",
    ops: [{ apply: "kubectl", object: deploy({ replicas: 2, selector, template: template([{ name: "nginx", image: "nginx:1" }]) }, { labels: { app: "web" } }) }],
    object: deploy({ replicas: 2, selector, template: template([{ name: "nginx", image: "nginx:1" }]) }, { labels: { app: "web" } }),
    fieldsV1: {
      "kubectl Apply": {
        "f:metadata": { "f:labels": { "f:app": {} } },
        "f:spec": {
          "f:replicas": {},
          "f:selector": {},
          "f:template": {
            "f:metadata": { "f:labels": { "f:app": {} } },
            "f:spec": { "f:containers": { 'k:{"name":"nginx"}': { ".": {}, "f:image": {}, "f:name": {} } } },
          },
        },
      },
    },
    entries: ["kubectl Apply apps/v1 2024-01-01T00:00:00Z"],
  },
  {
    name: "two appliers of different fields merge without conflict",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }) },
      { apply: "b", object: cm({ y: "2" }) },
    ],
    object: cm({ x: "1", y: "2" }),
    managed: { "a Apply": [".data.x"], "b Apply": [".data.y"] },
  },
  {
    name: "a different value for another applier's field conflicts",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ replicas: 2 }) },
      { apply: "b", object: deploy({ replicas: 3 }), conflicts: ['"a": .spec.replicas'] },
      { apply: "b", object: deploy({ replicas: 3 }), error: 'Apply failed with 1 conflict: conflict with "a": .spec.replicas' },
    ],
    object: deploy({ replicas: 2 }),
    managed: { "a Apply": [".spec.replicas"] },
  },
  {
    name: "force takes the field from the other applier",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ replicas: 2, paused: true }) },
      { apply: "b", object: deploy({ replicas: 3 }), force: true },
    ],
    object: deploy({ replicas: 3, paused: true }),
    managed: { "a Apply": [".spec.paused"], "b Apply": [".spec.replicas"] },
  },
  {
    name: "the same value is shared; the field goes only when its last owner drops it",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1", y: "1" }) },
      { apply: "b", object: cm({ x: "1" }) },
      { apply: "a", object: cm({ y: "1" }) },
    ],
    object: cm({ x: "1", y: "1" }),
    managed: { "a Apply": [".data.y"], "b Apply": [".data.x"] },
  },
  {
    name: "a field dropped by its only applier is removed",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }, { labels: { keep: "k", drop: "d" } }) },
      { apply: "a", object: cm({ x: "1" }, { labels: { keep: "k" } }) },
    ],
    object: cm({ x: "1" }, { labels: { keep: "k" } }),
    managed: { "a Apply": [".data.x", ".metadata.labels.keep"] },
  },
  {
    name: "dropping the last field of a map removes the map",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }) },
      { apply: "a", object: { apiVersion: "v1", kind: "ConfigMap", metadata: meta() } },
    ],
    object: { apiVersion: "v1", kind: "ConfigMap", metadata: meta() },
  },
  {
    name: "a dropped field owned by an updater stays",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }) },
      { update: "editor", merge: { data: { x: "2" } } },
      { apply: "a", object: cm({ x: "2" }), force: true },
      { update: "editor", merge: { data: { x: "3" } } },
      { apply: "a", object: cm({}) },
    ],
    object: cm({ x: "3" }),
    managed: { "editor Update": [".data.x"] },
  },
  {
    name: "removed list-map item with fields shared with another applier stays",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ template: { spec: { containers: [{ name: "app", image: "app:1" }] } } }) },
      { apply: "b", object: deploy({ template: { spec: { containers: [{ name: "app", image: "app:1" }] } } }) },
      { apply: "a", object: deploy({ paused: true }) },
    ],
    object: deploy({ template: { spec: { containers: [{ name: "app", image: "app:1" }] } }, paused: true }),
    managed: {
      "a Apply": [".spec.paused"],
      "b Apply": ['.spec.template.spec.containers[name="app"]', '.spec.template.spec.containers[name="app"].image', '.spec.template.spec.containers[name="app"].name'],
    },
  },
  {
    name: "containers merge by name; dropping one removes only that item",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ selector, template: template([{ name: "nginx", image: "nginx:1" }]) }) },
      { apply: "b", object: deploy({ template: { spec: { containers: [{ name: "sidecar", image: "envoy:1" }] } } }) },
      { apply: "a", object: deploy({ selector, template: template([{ name: "web", image: "web:1" }]) }) },
    ],
    object: deploy({ selector, template: template([{ name: "sidecar", image: "envoy:1" }, { name: "web", image: "web:1" }]) }),
    managed: {
      "a Apply": [
        ".metadata.labels.app".replace(".metadata", ".spec.template.metadata"),
        ".spec.selector",
        '.spec.template.spec.containers[name="web"]',
        '.spec.template.spec.containers[name="web"].image',
        '.spec.template.spec.containers[name="web"].name',
      ],
      "b Apply": ['.spec.template.spec.containers[name="sidecar"]', '.spec.template.spec.containers[name="sidecar"].image', '.spec.template.spec.containers[name="sidecar"].name'],
    },
  },
  {
    name: "container ports are keyed by containerPort and protocol (defaulted to TCP)",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ template: { spec: { containers: [{ name: "dns", ports: [{ containerPort: 53 }, { containerPort: 53, protocol: "UDP" }] }] } } }) },
      { apply: "b", object: deploy({ template: { spec: { containers: [{ name: "dns", ports: [{ containerPort: 53, protocol: "TCP", name: "dns-tcp" }] }] } } }) },
    ],
    object: deploy({
      template: { spec: { containers: [{ name: "dns", ports: [{ containerPort: 53, protocol: "TCP", name: "dns-tcp" }, { containerPort: 53, protocol: "UDP" }] }] } },
    }),
    fieldsV1: {
      "a Apply": {
        "f:spec": {
          "f:template": {
            "f:spec": {
              "f:containers": {
                'k:{"name":"dns"}': {
                  ".": {},
                  "f:name": {},
                  "f:ports": {
                    'k:{"containerPort":53,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} },
                    'k:{"containerPort":53,"protocol":"UDP"}': { ".": {}, "f:containerPort": {}, "f:protocol": {} },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  {
    name: "service ports are keyed by port and protocol; a port's field set by two appliers conflicts",
    kind: "Service",
    ops: [
      { apply: "a", object: svc({ ports: [{ port: 80, targetPort: 8080 }] }) },
      { apply: "b", object: svc({ ports: [{ port: 443, targetPort: 8443 }] }) },
      { apply: "b", object: svc({ ports: [{ port: 80, targetPort: 9090 }] }), conflicts: ['"a": .spec.ports[port=80,protocol="TCP"].targetPort'] },
    ],
    object: svc({ ports: [{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 8443 }] }),
    managed: {
      "a Apply": ['.spec.ports[port=80,protocol="TCP"]', '.spec.ports[port=80,protocol="TCP"].port', '.spec.ports[port=80,protocol="TCP"].targetPort'],
      "b Apply": ['.spec.ports[port=443,protocol="TCP"]', '.spec.ports[port=443,protocol="TCP"].port', '.spec.ports[port=443,protocol="TCP"].targetPort'],
    },
  },
  {
    name: "finalizers are a set: members merge and dropped members go",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({}, { finalizers: ["x.io/a", "x.io/shared"] }) },
      { apply: "b", object: cm({}, { finalizers: ["x.io/b", "x.io/shared"] }) },
      { apply: "a", object: cm({}, { finalizers: [] }) },
    ],
    object: cm({}, { finalizers: ["x.io/b", "x.io/shared"] }),
    fieldsV1: { "b Apply": { "f:metadata": { "f:finalizers": { 'v:"x.io/b"': {}, 'v:"x.io/shared"': {} } } } },
  },
  {
    name: "an atomic list is one field: another applier's different list conflicts, force replaces it whole",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ template: { spec: { containers: [{ name: "c", args: ["--x", "--y"] }] } } }) },
      { apply: "b", object: deploy({ template: { spec: { containers: [{ name: "c", args: ["--z"] }] } } }), conflicts: ['"a": .spec.template.spec.containers[name="c"].args'] },
      { apply: "b", object: deploy({ template: { spec: { containers: [{ name: "c", args: ["--z"] }] } } }), force: true },
    ],
    object: deploy({ template: { spec: { containers: [{ name: "c", args: ["--z"] }] } } }),
    managed: {
      "a Apply": ['.spec.template.spec.containers[name="c"]', '.spec.template.spec.containers[name="c"].name'],
      "b Apply": ['.spec.template.spec.containers[name="c"]', '.spec.template.spec.containers[name="c"].args', '.spec.template.spec.containers[name="c"].name'],
    },
  },
  {
    name: "an atomic map (service selector) conflicts as a whole, a granular map (data) merges",
    kind: "Service",
    ops: [
      { apply: "a", object: svc({ selector: { app: "web" } }) },
      { apply: "b", object: svc({ selector: { tier: "front" } }), conflicts: ['"a": .spec.selector'] },
      { apply: "b", object: svc({ selector: { tier: "front" } }), force: true },
    ],
    object: svc({ selector: { tier: "front" } }),
    managed: { "b Apply": [".spec.selector"] },
  },
  {
    name: "several conflicts are reported per manager and field",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ replicas: 1, paused: false }) },
      { update: "ctl", merge: { spec: { minReadySeconds: 5 } } },
      {
        apply: "b",
        object: deploy({ replicas: 2, paused: true, minReadySeconds: 9 }),
        conflicts: ['"a": .spec.paused', '"a": .spec.replicas', '"ctl" using apps/v1: .spec.minReadySeconds'],
      },
      {
        apply: "b",
        object: deploy({ replicas: 2, paused: true, minReadySeconds: 9 }),
        error: 'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.paused\n- .spec.replicas\nconflicts with "ctl" using apps/v1:\n- .spec.minReadySeconds',
      },
    ],
  },
  {
    name: "re-applying the same configuration changes nothing, not even the time",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }) },
      { apply: "a", object: cm({ x: "1" }) },
    ],
    entries: ["a Apply v1 2024-01-01T00:00:00Z"],
  },
  {
    name: "an applier keeps one entry across API versions",
    kind: "Deployment",
    live: {
      ...deploy({ replicas: 1, paused: true }),
      metadata: meta({
        managedFields: [{ manager: "a", operation: "Apply", apiVersion: "apps/v1beta2", time: "2023-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {}, "f:paused": {} } } }],
      }),
    },
    ops: [{ apply: "a", object: deploy({ replicas: 2 }) }],
    object: deploy({ replicas: 2 }),
    entries: ["a Apply apps/v1 2024-01-01T00:00:00Z"],
  },
  {
    name: "without reset fields an applier owns status too",
    kind: "Deployment",
    ops: [{ apply: "a", object: { ...deploy({ replicas: 1 }), status: { replicas: 5 } } }],
    managed: { "a Apply": [".spec.replicas", ".status.replicas"] },
  },
  {
    name: "status is a reset field of the main resource: nobody gains it, by apply or update",
    kind: "Deployment",
    resetFields: fieldPaths("status"),
    ops: [
      { apply: "a", object: { ...deploy({ replicas: 1 }), status: { replicas: 5 } } },
      { update: "u", merge: { spec: { paused: true }, status: { replicas: 6 } } },
    ],
    managed: { "a Apply": [".spec.replicas"], "u Update": [".spec.paused"] },
  },
  {
    name: "null in a configuration unsets the field and the applier owns it",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ replicas: 3 }) },
      { apply: "a", object: deploy({ replicas: null }) },
    ],
    object: deploy({}),
    managed: { "a Apply": [".spec.replicas"] },
  },
  {
    name: "an apply carrying managedFields is rejected",
    kind: "ConfigMap",
    ops: [{ apply: "a", object: cm({}, { managedFields: [] }), error: "metadata.managedFields must be nil" }],
  },
  {
    name: "an apply of another kind or version is rejected",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: { apiVersion: "v1", kind: "Secret", metadata: meta() }, error: "invalid object type: /v1, Kind=Secret" },
      { apply: "a", object: { apiVersion: "apps/v1beta1", kind: "ConfigMap", metadata: meta() }, error: "invalid object type: apps/v1beta1, Kind=ConfigMap" },
    ],
  },
  {
    name: "a configuration repeating a list-map key is rejected",
    kind: "Deployment",
    ops: [
      {
        apply: "a",
        object: deploy({ template: { spec: { containers: [{ name: "c" }, { name: "c" }] } } }),
        error: 'failed to create typed patch object (apps/v1, Kind=Deployment default/web): .spec.template.spec.containers: duplicate entries for key [name="c"]',
      },
    ],
  },
  {
    name: "a list-map item without its key and no default is rejected",
    kind: "Deployment",
    ops: [
      {
        apply: "a",
        object: deploy({ template: { spec: { containers: [{ image: "x" }] } } }),
        error: '.spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
      },
    ],
  },
  {
    name: "stored managedFields that do not decode fail the apply",
    kind: "ConfigMap",
    live: { ...cm({}), metadata: meta({ managedFields: [{ manager: "x", operation: "Patch", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }] }) },
    ops: [{ apply: "a", object: cm({ x: "1" }), error: "failed to decode managed fields: operation must be `Apply` or `Update`" }],
  },
];

describe("server-side apply scenarios", () => {
  for (const sc of scenarios) it(sc.name, () => void runScenario(sc));
});
