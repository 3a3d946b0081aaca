import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import { applyDefaults, decodeYamlStrict, findUnknownFields, validate, validateImmutable, validateObjectMeta } from "../../schema/index.ts";
import type { FieldError, FieldErrorType, KindDefinition, Schema } from "../../schema/types.ts";
import { humanDuration } from "../table-cells.ts";
import {
  configMapUpdateErrors,
  coreV1Kinds,
  formatEndpoints,
  imageTag,
  kinds,
  nodeRoles,
  initialPodStatus,
  nodeStatusCell,
  podQOSClass,
  protoEmbeddings,
  quantityNanos,
  secretUpdateErrors,
  serviceExternalIP,
  servicePorts,
  summarizePod,
} from "./core-v1.ts";

type Obj = Record<string, unknown>;
type Path = Array<string | number>;

const SAMPLES = join(import.meta.dirname, "..", "samples", "core-v1");
const profile = getProfile("plat");

function kindDef(kind: string): KindDefinition {
  const def = kinds.find((k) => k.kind === kind);
  if (!def) throw new Error(`no kind ${kind}`);
  return def;
}

/** The YAML documents of a sample file, strictly decoded (no duplicate fields). */
function loadSamples(file: string): Obj[] {
  const text = readFileSync(join(SAMPLES, file), "utf8");
  return text
    .split(/^---[ \t]*$/m)
    .filter((d) => d.split("\n").some((l) => l.trim() !== "" && !l.trim().startsWith("#")))
    .map((d) => {
      const r = decodeYamlStrict(d);
      expect(r.duplicates, `${file}: duplicate fields`).toEqual([]);
      return r.value as Obj;
    });
}

function sampleFor(kind: string): Obj[] {
  return loadSamples(`${kind.toLowerCase()}.yaml`);
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Schema defaults, then the kind's own defaulter. */
function defaulted(def: KindDefinition, obj: Obj): Obj {
  const out = applyDefaults(def.schema, obj) as Obj;
  def.defaulter?.(out);
  return out;
}

/** Everything a create runs: schema, metadata and kind rules. */
function allErrors(def: KindDefinition, obj: Obj): FieldError[] {
  return [
    ...validate(def.schema, obj),
    ...validateObjectMeta(obj.metadata, { namespaced: def.namespaced, nameFormat: def.nameFormat }),
    ...(def.validateKind?.(obj) ?? []),
  ];
}

function at(obj: unknown, path: Path): unknown {
  let cur = obj;
  for (const p of path) cur = (cur as Record<string | number, unknown>)[p];
  return cur;
}

function mutate(obj: Obj, path: Path, value: unknown | typeof DELETE): Obj {
  const out = clone(obj);
  const parent = at(out, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (value === DELETE) delete parent[last];
  else parent[last] = value;
  return out;
}

const DELETE = Symbol("delete");

interface Mutation {
  doc?: number;
  path: Path;
  value: unknown;
  field: string;
  type: FieldErrorType;
}

interface KindCase {
  kind: string;
  /** Where to add an unknown field, and the path it must be reported at. */
  unknown: { doc?: number; parent: Path; field: string };
  wrongType: Mutation;
  missing?: Mutation;
  badEnum?: Mutation;
  /** A rule of the kind beyond the schema (keys, type-specific data). */
  kindRule?: Mutation;
  badName?: string;
  /** Assertions on the defaulted documents. */
  defaults: (docs: Obj[]) => void;
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

const CASES: KindCase[] = [
  {
    kind: "Pod",
    unknown: { parent: ["spec", "containers", 0, "livenessProbe", "httpGet"], field: "spec.containers[0].livenessProbe.httpGet.bogus" },
    wrongType: { path: ["spec", "containers", 0, "ports", 0, "containerPort"], value: "8080", field: "spec.containers[0].ports[0].containerPort", type: "FieldValueTypeInvalid" },
    missing: { path: ["spec", "containers", 0, "name"], value: DELETE, field: "spec.containers[0].name", type: "FieldValueRequired" },
    badEnum: { path: ["spec", "restartPolicy"], value: "Sometimes", field: "spec.restartPolicy", type: "FieldValueNotSupported" },
    kindRule: { path: ["spec", "initContainers", 0, "image"], value: DELETE, field: "spec.initContainers[0].image", type: "FieldValueRequired" },
    defaults: ([web, redis, batch]) => {
      expect(at(web, ["spec", "restartPolicy"])).toBe("Always");
      expect(at(web, ["spec", "schedulerName"])).toBe("default-scheduler");
      expect(at(web, ["spec", "terminationGracePeriodSeconds"])).toBe(45);
      expect(at(web, ["spec", "enableServiceLinks"])).toBe(true);
      const c = ["spec", "containers", 0];
      expect(at(web, [...c, "terminationMessagePath"])).toBe("/dev/termination-log");
      expect(at(web, [...c, "terminationMessagePolicy"])).toBe("File");
      expect(at(web, [...c, "ports", 1, "protocol"])).toBe("TCP");
      expect(at(web, [...c, "ports", 2, "protocol"])).toBe("UDP");
      expect(at(web, [...c, "livenessProbe", "successThreshold"])).toBe(1);
      expect(at(web, [...c, "livenessProbe", "timeoutSeconds"])).toBe(3);
      expect(at(web, [...c, "livenessProbe", "httpGet", "scheme"])).toBe("HTTP");
      expect(at(web, [...c, "readinessProbe", "timeoutSeconds"])).toBe(1);
      expect(at(web, [...c, "readinessProbe", "failureThreshold"])).toBe(3);
      expect(at(web, [...c, "readinessProbe", "periodSeconds"])).toBe(5);
      expect(at(web, [...c, "env", 3, "valueFrom", "fieldRef", "apiVersion"])).toBe("v1");
      expect(at(web, ["spec", "initContainers", 0, "imagePullPolicy"])).toBe("IfNotPresent");
      expect(at(web, ["spec", "initContainers", 1, "restartPolicy"])).toBe("Always");
      expect(at(web, ["spec", "volumes", 0, "configMap", "defaultMode"])).toBe(420);
      expect(at(web, ["spec", "volumes", 1, "secret", "defaultMode"])).toBe(256);
      expect(at(web, ["spec", "volumes", 4, "configMap", "defaultMode"])).toBe(420);
      expect(at(web, ["spec", "volumes", 8, "ephemeral", "volumeClaimTemplate", "spec", "volumeMode"])).toBe("Filesystem");
      expect(at(web, ["spec", "volumes", 11, "hostPath", "type"])).toBe("Directory");
      expect(at(web, ["spec", "securityContext", "runAsUser"])).toBe(10001);
      expect(at(redis, [...c, "terminationMessagePolicy"])).toBe("FallbackToLogsOnError");
      expect(at(redis, [...c, "livenessProbe", "grpc", "service"])).toBe("");
      expect(at(redis, ["spec", "volumes", 1, "configMap", "defaultMode"])).toBe(420);
      expect(at(batch, ["spec", "securityContext"])).toEqual({});
      expect(at(batch, ["spec", "dnsPolicy"])).toBe("ClusterFirst");
      expect(at(batch, ["spec", "terminationGracePeriodSeconds"])).toBe(30);
      expect(at(batch, ["spec", "restartPolicy"])).toBe("Never");
      expect(at(batch, [...c, "imagePullPolicy"])).toBe("IfNotPresent");
      expect(at(batch, [...c, "resources", "requests"])).toEqual({ cpu: "2", memory: "4Gi" });
    },
  },
  {
    kind: "Namespace",
    unknown: { doc: 1, parent: ["spec"], field: "spec.bogus" },
    wrongType: { doc: 1, path: ["spec", "finalizers"], value: "plat", field: "spec.finalizers", type: "FieldValueTypeInvalid" },
    missing: { doc: 1, path: ["status", "conditions", 0, "type"], value: DELETE, field: "status.conditions[0].type", type: "FieldValueRequired" },
    badEnum: { doc: 1, path: ["status", "phase"], value: "Deleting", field: "status.phase", type: "FieldValueNotSupported" },
    badName: "Shop.Team",
    defaults: ([shop, terminating]) => {
      expect(at(shop, ["status", "phase"])).toBe("Active");
      expect(at(shop, ["metadata", "labels", profile.labels.metadataName])).toBe("shop");
      expect(at(shop, ["metadata", "labels", "team.example.com/owner"])).toBe("commerce");
      expect(at(terminating, ["status", "phase"])).toBe("Terminating");
      expect(at(terminating, ["metadata", "labels", profile.labels.metadataName])).toBe("feature-preview-1432");
    },
  },
  {
    kind: "Service",
    unknown: { parent: ["spec", "ports", 0], field: "spec.ports[0].bogus" },
    wrongType: { path: ["spec", "ports", 0, "port"], value: "80", field: "spec.ports[0].port", type: "FieldValueTypeInvalid" },
    missing: { path: ["spec", "ports", 0, "port"], value: DELETE, field: "spec.ports[0].port", type: "FieldValueRequired" },
    badEnum: { path: ["spec", "type"], value: "Internal", field: "spec.type", type: "FieldValueNotSupported" },
    badName: "9storefront",
    defaults: ([web, headless, nodePort, lb, external]) => {
      expect(at(web, ["spec", "sessionAffinity"])).toBe("None");
      expect(at(web, ["spec", "internalTrafficPolicy"])).toBe("Cluster");
      expect(at(web, ["spec", "ports", 0, "targetPort"])).toBe("http");
      expect(at(web, ["spec", "ports", 1, "targetPort"])).toBe(9090);
      expect(at(web, ["spec", "ports", 1, "protocol"])).toBe("TCP");
      expect((web.spec as Obj).externalTrafficPolicy).toBeUndefined();
      expect(at(headless, ["spec", "type"])).toBe("ClusterIP");
      expect(at(headless, ["spec", "ports", 0, "targetPort"])).toBe(6379);
      expect(at(nodePort, ["spec", "externalTrafficPolicy"])).toBe("Cluster");
      expect(at(nodePort, ["spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"])).toBe(3600);
      expect(at(lb, ["spec", "externalTrafficPolicy"])).toBe("Local");
      expect(at(lb, ["spec", "allocateLoadBalancerNodePorts"])).toBe(true);
      const noMode = mutate(sampleFor("Service")[3], ["status", "loadBalancer", "ingress", 0, "ipMode"], DELETE);
      expect(at(defaulted(kindDef("Service"), noMode), ["status", "loadBalancer", "ingress", 0, "ipMode"])).toBe("VIP");
      const withExternalIPs = mutate(sampleFor("Service")[0], ["spec", "externalIPs"], ["198.51.100.7"]);
      expect(at(defaulted(kindDef("Service"), withExternalIPs), ["spec", "externalTrafficPolicy"])).toBe("Cluster");
      expect(at(external, ["spec", "sessionAffinity"])).toBe("None");
      expect((external.spec as Obj).internalTrafficPolicy).toBeUndefined();
    },
  },
  {
    kind: "Endpoints",
    unknown: { parent: ["subsets", 0, "addresses", 0], field: "subsets[0].addresses[0].bogus" },
    wrongType: { path: ["subsets", 0, "ports", 0, "port"], value: "8443", field: "subsets[0].ports[0].port", type: "FieldValueTypeInvalid" },
    missing: { path: ["subsets", 0, "addresses", 0, "ip"], value: DELETE, field: "subsets[0].addresses[0].ip", type: "FieldValueRequired" },
    badEnum: { path: ["subsets", 0, "ports", 0, "protocol"], value: "HTTP", field: "subsets[0].ports[0].protocol", type: "FieldValueNotSupported" },
    defaults: ([, pods]) => {
      expect(at(pods, ["subsets", 0, "ports", 0, "protocol"])).toBe("TCP");
      expect(at(pods, ["subsets", 0, "addresses", 0, "targetRef", "kind"])).toBe("Pod");
    },
  },
  {
    kind: "ConfigMap",
    unknown: { parent: ["metadata"], field: "metadata.bogus" },
    wrongType: { doc: 1, path: ["immutable"], value: "yes", field: "immutable", type: "FieldValueTypeInvalid" },
    kindRule: { path: ["binaryData"], value: { "bad key!": "AA==" }, field: "binaryData[bad key!]", type: "FieldValueInvalid" },
    defaults: (docs) => {
      expect(docs[0].data).toEqual(sampleFor("ConfigMap")[0].data);
      expect(docs[1].immutable).toBe(true);
    },
  },
  {
    kind: "Secret",
    unknown: { doc: 1, parent: ["metadata"], field: "metadata.bogus" },
    wrongType: { doc: 1, path: ["type"], value: 42, field: "type", type: "FieldValueTypeInvalid" },
    missing: { doc: 1, path: ["data", "tls.key"], value: DELETE, field: "data[tls.key]", type: "FieldValueRequired" },
    kindRule: { doc: 2, path: ["data", ".dockerconfigjson"], value: b64("{not json"), field: "data[.dockerconfigjson]", type: "FieldValueInvalid" },
    defaults: ([opaque, tls, , basic, token]) => {
      expect(opaque.type).toBe("Opaque");
      expect(opaque.stringData).toBeUndefined();
      expect(at(opaque, ["data", "username"])).toBe(b64("shop"));
      expect(at(opaque, ["data", "password"])).toBe(b64("pa55w0rd"));
      expect(at(opaque, ["data", "url"])).toBe(at(sampleFor("Secret")[0], ["data", "url"]));
      expect(tls.type).toBe(profile.secretTypes.tls);
      expect(basic.immutable).toBe(true);
      expect(token.type).toBe(profile.secretTypes.serviceAccountToken);
    },
  },
  {
    kind: "ServiceAccount",
    unknown: { doc: 1, parent: ["secrets", 0], field: "secrets[0].bogus" },
    wrongType: { path: ["automountServiceAccountToken"], value: "false", field: "automountServiceAccountToken", type: "FieldValueTypeInvalid" },
    badName: "ci_deployer",
    defaults: (docs) => {
      expect(docs[0].automountServiceAccountToken).toBe(false);
      expect(at(docs[0], ["imagePullSecrets", 0, "name"])).toBe("registry-credentials");
      expect(at(docs[1], ["secrets", 0])).toEqual({ name: "ci-deployer-token" });
    },
  },
  {
    kind: "Node",
    unknown: { parent: ["spec", "taints", 0], field: "spec.taints[0].bogus" },
    wrongType: { path: ["spec", "unschedulable"], value: "true", field: "spec.unschedulable", type: "FieldValueTypeInvalid" },
    missing: { path: ["spec", "taints", 0, "effect"], value: DELETE, field: "spec.taints[0].effect", type: "FieldValueRequired" },
    badEnum: { path: ["status", "addresses", 0, "type"], value: "PrivateIP", field: "status.addresses[0].type", type: "FieldValueNotSupported" },
    badName: "Worker_3",
    defaults: ([worker, edge]) => {
      expect(at(worker, ["status", "allocatable", "cpu"])).toBe("7910m");
      expect(edge.status).toBeUndefined();
      const noAlloc = mutate(sampleFor("Node")[0], ["status", "allocatable"], DELETE);
      expect(at(defaulted(kindDef("Node"), noAlloc), ["status", "allocatable"])).toEqual(at(noAlloc, ["status", "capacity"]));
    },
  },
  {
    kind: "Event",
    unknown: { parent: ["involvedObject"], field: "involvedObject.bogus" },
    wrongType: { path: ["count"], value: "14", field: "count", type: "FieldValueTypeInvalid" },
    missing: { path: ["involvedObject"], value: DELETE, field: "involvedObject", type: "FieldValueRequired" },
    badEnum: { doc: 1, path: ["type"], value: "Info", field: "type", type: "FieldValueNotSupported" },
    defaults: (docs) => {
      expect(docs).toEqual(sampleFor("Event"));
    },
  },
  {
    kind: "PersistentVolume",
    unknown: { parent: ["spec", "csi"], field: "spec.csi.bogus" },
    wrongType: { path: ["spec", "capacity"], value: "20Gi", field: "spec.capacity", type: "FieldValueTypeInvalid" },
    missing: { path: ["spec", "csi", "volumeHandle"], value: DELETE, field: "spec.csi.volumeHandle", type: "FieldValueRequired" },
    badEnum: { path: ["spec", "persistentVolumeReclaimPolicy"], value: "Keep", field: "spec.persistentVolumeReclaimPolicy", type: "FieldValueNotSupported" },
    defaults: ([csi, nfs, local]) => {
      expect(at(csi, ["spec", "persistentVolumeReclaimPolicy"])).toBe("Delete");
      expect(at(csi, ["status", "phase"])).toBe("Bound");
      expect(at(nfs, ["spec", "persistentVolumeReclaimPolicy"])).toBe("Retain");
      expect(at(nfs, ["spec", "volumeMode"])).toBe("Filesystem");
      expect(at(nfs, ["status", "phase"])).toBe("Pending");
      expect(at(local, ["spec", "volumeMode"])).toBe("Block");
    },
  },
  {
    kind: "PersistentVolumeClaim",
    unknown: { parent: ["spec", "resources"], field: "spec.resources.bogus" },
    wrongType: { path: ["spec", "accessModes"], value: "ReadWriteMany", field: "spec.accessModes", type: "FieldValueTypeInvalid" },
    missing: { doc: 1, path: ["spec", "dataSourceRef", "kind"], value: DELETE, field: "spec.dataSourceRef.kind", type: "FieldValueRequired" },
    badEnum: { path: ["spec", "accessModes", 0], value: "ReadWriteSometimes", field: "spec.accessModes[0]", type: "FieldValueNotSupported" },
    defaults: ([uploads, restore, bound]) => {
      expect(at(uploads, ["spec", "volumeMode"])).toBe("Filesystem");
      expect(at(uploads, ["status", "phase"])).toBe("Pending");
      expect(at(restore, ["spec", "volumeAttributesClassName"])).toBe("gold");
      expect(at(bound, ["status", "phase"])).toBe("Bound");
    },
  },
  {
    kind: "LimitRange",
    unknown: { parent: ["spec", "limits", 0], field: "spec.limits[0].bogus" },
    wrongType: { path: ["spec", "limits"], value: {}, field: "spec.limits", type: "FieldValueTypeInvalid" },
    missing: { path: ["spec", "limits", 0, "type"], value: DELETE, field: "spec.limits[0].type", type: "FieldValueRequired" },
    badEnum: { path: ["spec", "limits", 1, "type"], value: "Namespace", field: "spec.limits[1].type", type: "FieldValueNotSupported" },
    defaults: ([lr]) => {
      expect(at(lr, ["spec", "limits", 0, "default"])).toEqual({ cpu: "500m", memory: "512Mi", "ephemeral-storage": "10Gi" });
      expect(at(lr, ["spec", "limits", 0, "defaultRequest"])).toEqual({ cpu: "100m", memory: "512Mi", "ephemeral-storage": "10Gi" });
      expect(at(lr, ["spec", "limits", 1, "default"])).toBeUndefined();
    },
  },
  {
    kind: "ResourceQuota",
    unknown: { doc: 1, parent: ["spec", "scopeSelector", "matchExpressions", 0], field: "spec.scopeSelector.matchExpressions[0].bogus" },
    wrongType: { path: ["spec", "hard"], value: [], field: "spec.hard", type: "FieldValueTypeInvalid" },
    missing: { doc: 1, path: ["spec", "scopeSelector", "matchExpressions", 0, "operator"], value: DELETE, field: "spec.scopeSelector.matchExpressions[0].operator", type: "FieldValueRequired" },
    badEnum: { doc: 2, path: ["spec", "scopes", 1], value: "Evergreen", field: "spec.scopes[1]", type: "FieldValueNotSupported" },
    defaults: (docs) => {
      expect(docs).toEqual(sampleFor("ResourceQuota"));
    },
  },
  {
    kind: "ReplicationController",
    unknown: { parent: ["spec", "template", "spec", "containers", 0], field: "spec.template.spec.containers[0].bogus" },
    wrongType: { path: ["spec", "replicas"], value: "3", field: "spec.replicas", type: "FieldValueTypeInvalid" },
    missing: {
      path: ["spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"],
      value: DELETE,
      field: "spec.template.spec.containers[0].ports[0].containerPort",
      type: "FieldValueRequired",
    },
    badEnum: {
      path: ["spec", "template", "spec", "containers", 0, "imagePullPolicy"],
      value: "Sometimes",
      field: "spec.template.spec.containers[0].imagePullPolicy",
      type: "FieldValueNotSupported",
    },
    kindRule: { path: ["spec", "template", "spec", "restartPolicy"], value: "Never", field: "spec.template.spec.restartPolicy", type: "FieldValueNotSupported" },
    defaults: ([memcached, echo]) => {
      expect(at(memcached, ["spec", "replicas"])).toBe(3);
      expect(at(memcached, ["spec", "template", "spec", "restartPolicy"])).toBe("Always");
      expect(at(memcached, ["spec", "template", "spec", "containers", 0, "imagePullPolicy"])).toBe("IfNotPresent");
      expect(at(echo, ["spec", "replicas"])).toBe(1);
      expect(at(echo, ["spec", "minReadySeconds"])).toBe(0);
      expect(at(echo, ["spec", "selector"])).toEqual({ app: "echo" });
      expect(at(echo, ["metadata", "labels"])).toEqual({ app: "echo" });
      expect(at(echo, ["spec", "template", "spec", "containers", 0, "imagePullPolicy"])).toBe("Always");
      expect(at(echo, ["spec", "template", "spec", "containers", 0, "ports", 0, "protocol"])).toBe("TCP");
      expect((at(echo, ["spec", "template", "spec"]) as Obj).enableServiceLinks).toBeUndefined();
      const mismatch = mutate(sampleFor("ReplicationController")[0], ["spec", "selector"], { app: "other" });
      expect(allErrors(kindDef("ReplicationController"), defaulted(kindDef("ReplicationController"), mismatch)).map((e) => e.field)).toEqual([
        "spec.template.metadata.labels",
      ]);
    },
  },
  {
    kind: "PodTemplate",
    unknown: { parent: ["template", "spec", "containers", 0, "securityContext"], field: "template.spec.containers[0].securityContext.bogus" },
    wrongType: { path: ["template", "spec", "hostNetwork"], value: "true", field: "template.spec.hostNetwork", type: "FieldValueTypeInvalid" },
    missing: { path: ["template", "spec", "containers", 0, "name"], value: DELETE, field: "template.spec.containers[0].name", type: "FieldValueRequired" },
    badEnum: { path: ["template", "spec", "restartPolicy"], value: "Maybe", field: "template.spec.restartPolicy", type: "FieldValueNotSupported" },
    kindRule: { path: ["template", "spec", "containers"], value: [], field: "template.spec.containers", type: "FieldValueRequired" },
    defaults: ([t]) => {
      const c = ["template", "spec", "containers", 0];
      expect(at(t, [...c, "imagePullPolicy"])).toBe("Always");
      expect(at(t, [...c, "ports", 0, "hostPort"])).toBe(2222);
      expect(at(t, ["template", "spec", "schedulerName"])).toBe("default-scheduler");
      expect(at(t, ["template", "spec", "restartPolicy"])).toBe("Never");
      expect((at(t, ["template", "spec"]) as Obj).enableServiceLinks).toBeUndefined();
    },
  },
  {
    kind: "Binding",
    unknown: { parent: ["target"], field: "target.bogus" },
    wrongType: { path: ["target"], value: "worker-3", field: "target", type: "FieldValueTypeInvalid" },
    missing: { path: ["target"], value: DELETE, field: "target", type: "FieldValueRequired" },
    defaults: (docs) => {
      expect(docs).toEqual(sampleFor("Binding"));
    },
  },
];

describe("core/v1 kinds", () => {
  it("every kind has a sample file and a test case", () => {
    const files = readdirSync(SAMPLES).sort();
    expect(files).toEqual(kinds.map((k) => `${k.kind.toLowerCase()}.yaml`).sort());
    expect(CASES.map((c) => c.kind).sort()).toEqual(kinds.map((k) => k.kind).sort());
  });

  for (const c of CASES) {
    describe(c.kind, () => {
      const def = kindDef(c.kind);
      const docs = () => sampleFor(c.kind);

      it("samples have no unknown fields and validate", () => {
        for (const [i, doc] of docs().entries()) {
          expect(doc.kind, `doc ${i}`).toBe(c.kind);
          expect(findUnknownFields(def.schema, doc), `doc ${i}`).toEqual([]);
          expect(validate(def.schema, doc), `doc ${i}`).toEqual([]);
          expect(allErrors(def, defaulted(def, doc)), `doc ${i} defaulted`).toEqual([]);
        }
      });

      it("defaulting is idempotent and fills the platform's defaults", () => {
        const once = docs().map((d) => defaulted(def, d));
        const twice = once.map((d) => defaulted(def, clone(d)));
        expect(twice).toEqual(once);
        expect(once.map((d) => findUnknownFields(def.schema, d))).toEqual(once.map(() => []));
        c.defaults(once);
      });

      it("reports an unknown nested field at its path", () => {
        const doc = docs()[c.unknown.doc ?? 0];
        const parent = at(doc, c.unknown.parent) as Obj;
        parent.bogus = { nested: true };
        expect(findUnknownFields(def.schema, doc)).toEqual([c.unknown.field]);
      });

      const mutations: Array<[string, Mutation | undefined]> = [
        ["a wrong type", c.wrongType],
        ["a missing required field", c.missing],
        ["a bad enum value", c.badEnum],
        ["a kind rule violation", c.kindRule],
      ];
      for (const [what, m] of mutations) {
        if (!m) continue;
        it(`rejects ${what} at ${m.field}`, () => {
          const bad = mutate(docs()[m.doc ?? 0], m.path, m.value);
          const errs = allErrors(def, defaulted(def, bad));
          expect(errs.map((e) => [e.field, e.type])).toEqual([[m.field, m.type]]);
        });
      }

      it("rejects a bad metadata.name", () => {
        const name = c.badName ?? "Bad_Name";
        const bad = mutate(docs()[0], ["metadata", "name"], name);
        const errs = allErrors(def, defaulted(def, bad));
        expect(errs.map((e) => [e.field, e.type])).toEqual([["metadata.name", "FieldValueInvalid"]]);
      });
    });
  }
});

describe("core/v1 schema structure", () => {
  /** Every object's protobuf tags are unique among its properties. */
  function checkTags(s: Schema, path: string, seen: Set<Schema>, out: string[]): void {
    if (seen.has(s)) return;
    seen.add(s);
    const tags = new Map<number, string>();
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      if (v.protoTag !== undefined) {
        const prev = tags.get(v.protoTag);
        if (prev) out.push(`${path}: ${prev} and ${k} share tag ${v.protoTag}`);
        tags.set(v.protoTag, k);
      }
      checkTags(v, `${path}.${k}`, seen, out);
    }
    if (s.items) checkTags(s.items, `${path}[]`, seen, out);
    if (s.additionalProperties) checkTags(s.additionalProperties, `${path}{}`, seen, out);
  }

  it("protobuf field numbers do not collide", () => {
    const out: string[] = [];
    for (const k of kinds) checkTags(k.schema, k.kind, new Set(), out);
    expect(out).toEqual([]);
  });

  it("every property has a protobuf number, or belongs to a listed inlined struct", () => {
    const missing: string[] = [];
    const seen = new Set<Schema>();
    const walk = (s: Schema) => {
      if (seen.has(s)) return;
      seen.add(s);
      const embedded = s.definition ? protoEmbeddings[s.definition.name] : undefined;
      for (const [k, v] of Object.entries(s.properties ?? {})) {
        if (v.protoTag === undefined && k !== "apiVersion" && k !== "kind" && embedded?.tags[k] === undefined) missing.push(`${s.definition?.name}.${k}`);
        walk(v);
      }
      if (s.items) walk(s.items);
      if (s.additionalProperties) walk(s.additionalProperties);
    };
    for (const k of kinds) walk(k.schema);
    expect(missing).toEqual([]);
    expect(protoEmbeddings.Volume.tags).toMatchObject({ hostPath: 1, secret: 6, configMap: 19, projected: 26, csi: 28, ephemeral: 29, image: 30 });
    expect(protoEmbeddings.EphemeralContainer.tags).toMatchObject({ name: 1, envFrom: 19, restartPolicyRules: 25 });
  });

  it("uses the platform's list markers for the merge-sensitive lists", () => {
    const podSpec = kindDef("Pod").schema.properties?.spec as Schema;
    const p = podSpec.properties ?? {};
    expect(p.containers).toMatchObject({ listType: "map", listMapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", protoTag: 2 });
    expect(p.volumes).toMatchObject({ listType: "map", listMapKeys: ["name"], patchStrategy: "merge,retainKeys", protoTag: 1 });
    expect(p.tolerations).toMatchObject({ listType: "atomic", protoTag: 22 });
    expect(p.topologySpreadConstraints).toMatchObject({ listMapKeys: ["topologyKey", "whenUnsatisfiable"], patchMergeKey: "topologyKey" });
    const ctr = p.containers.items?.properties ?? {};
    expect(ctr.ports).toMatchObject({ listType: "map", listMapKeys: ["containerPort", "protocol"], patchMergeKey: "containerPort", protoTag: 6 });
    expect(ctr.env).toMatchObject({ listType: "map", listMapKeys: ["name"], patchMergeKey: "name", protoTag: 7 });
    expect(ctr.envFrom).toMatchObject({ listType: "atomic", protoTag: 19 });
    const svc = (kindDef("Service").schema.properties?.spec as Schema).properties ?? {};
    expect(svc.ports).toMatchObject({ listType: "map", listMapKeys: ["port", "protocol"], patchMergeKey: "port" });
    expect(svc.selector).toMatchObject({ mapType: "atomic" });
    const meta = kindDef("Pod").schema.properties?.metadata as Schema;
    expect(meta.properties?.finalizers).toMatchObject({ listType: "set" });
  });

  it("declares scopes, short names, categories, subresources and field selectors", () => {
    const by = (k: string) => kindDef(k);
    expect(by("Pod")).toMatchObject({ plural: "pods", namespaced: true, shortNames: ["po"], categories: ["all"] });
    expect(by("Pod").subresources).toEqual(
      expect.arrayContaining(["status", "binding", "eviction", "log", "exec", "attach", "portforward", "proxy", "ephemeralcontainers", "resize"]),
    );
    expect(by("Namespace")).toMatchObject({ namespaced: false, shortNames: ["ns"], nameFormat: "dns1123-label", selectableFields: ["status.phase"] });
    expect(by("Node")).toMatchObject({ namespaced: false, shortNames: ["no"], selectableFields: ["spec.unschedulable"] });
    expect(by("Service")).toMatchObject({ shortNames: ["svc"], categories: ["all"], subresources: ["status", "proxy"] });
    expect(by("ReplicationController")).toMatchObject({ shortNames: ["rc"], scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" } });
    expect(by("ServiceAccount")).toMatchObject({ shortNames: ["sa"], subresources: ["token"] });
    expect(by("PersistentVolumeClaim").shortNames).toEqual(["pvc"]);
    expect(by("PersistentVolume").shortNames).toEqual(["pv"]);
    expect(by("ConfigMap").shortNames).toEqual(["cm"]);
    expect(by("Event").shortNames).toEqual(["ev"]);
    expect(by("Endpoints").shortNames).toEqual(["ep"]);
    expect(by("LimitRange").shortNames).toEqual(["limits"]);
    expect(by("ResourceQuota").shortNames).toEqual(["quota"]);
    expect(by("Secret").selectableFields).toEqual(["type"]);
    expect(by("Binding")).toMatchObject({ virtual: true, verbs: ["create"] });
    expect(by("Pod").selectableFields).toEqual(expect.arrayContaining(["spec.nodeName", "status.phase", "status.podIP", "status.nominatedNodeName"]));
  });

  it("builds the profile-dependent kinds from the profile", () => {
    const k8s = coreV1Kinds(getProfile("kubernetes"));
    const ns = k8s.find((k) => k.kind === "Namespace") as KindDefinition;
    const out = defaulted(ns, { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } });
    expect(out.metadata).toEqual({ name: "team-a", labels: { [getProfile("kubernetes").labels.metadataName]: "team-a" } });
    const secret = k8s.find((k) => k.kind === "Secret") as KindDefinition;
    const tls = { apiVersion: "v1", kind: "Secret", metadata: { name: "x", namespace: "d" }, type: getProfile("kubernetes").secretTypes.tls, data: {} };
    expect(secret.validateKind?.(tls).map((e) => e.field)).toEqual(["data[tls.crt]", "data[tls.key]"]);
  });
});

describe("core/v1 cross-field rules", () => {
  const fieldsOf = (kind: string, obj: Obj) => allErrors(kindDef(kind), defaulted(kindDef(kind), obj)).map((e) => [e.field, e.type]);

  it("pods: volume sources, mounts, probes, container names", () => {
    const [web] = sampleFor("Pod");
    expect(fieldsOf("Pod", mutate(web, ["spec", "volumes", 2, "configMap"], { name: "x" }))).toEqual([["spec.volumes[2].configMap", "FieldValueForbidden"]]);
    expect(fieldsOf("Pod", mutate(web, ["spec", "containers", 0, "volumeMounts", 0, "name"], "missing"))).toEqual([
      ["spec.containers[0].volumeMounts[0].name", "FieldValueNotFound"],
    ]);
    expect(fieldsOf("Pod", mutate(web, ["spec", "containers", 0, "livenessProbe", "successThreshold"], 2))).toEqual([
      ["spec.containers[0].livenessProbe.successThreshold", "FieldValueInvalid"],
    ]);
    expect(fieldsOf("Pod", mutate(web, ["spec", "containers", 0, "readinessProbe", "successThreshold"], 2))).toEqual([]);
    expect(fieldsOf("Pod", mutate(web, ["spec", "initContainers", 0, "name"], "web"))).toEqual([["spec.containers[0].name", "FieldValueDuplicate"]]);
    expect(fieldsOf("Pod", mutate(web, ["spec", "containers"], []))).toEqual([["spec.containers", "FieldValueRequired"]]);
  });

  it("services: ports, port names, node ports, external names", () => {
    const [web, headless, , , external] = sampleFor("Service");
    expect(fieldsOf("Service", mutate(web, ["spec", "ports", 1, "name"], DELETE))).toEqual([["spec.ports[1].name", "FieldValueRequired"]]);
    expect(fieldsOf("Service", mutate(web, ["spec", "ports", 1, "name"], "http"))).toEqual([["spec.ports[1].name", "FieldValueDuplicate"]]);
    expect(fieldsOf("Service", mutate(web, ["spec", "ports", 0, "nodePort"], 30080))).toEqual([["spec.ports[0].nodePort", "FieldValueForbidden"]]);
    expect(fieldsOf("Service", mutate(web, ["spec", "ports"], DELETE))).toEqual([["spec.ports", "FieldValueRequired"]]);
    expect(fieldsOf("Service", mutate(headless, ["spec", "ports"], DELETE))).toEqual([]);
    expect(fieldsOf("Service", mutate(external, ["spec", "externalName"], DELETE))).toEqual([["spec.externalName", "FieldValueRequired"]]);
  });

  it("claims: access modes and storage request", () => {
    const [uploads] = sampleFor("PersistentVolumeClaim");
    expect(fieldsOf("PersistentVolumeClaim", mutate(uploads, ["spec", "accessModes"], []))).toEqual([["spec.accessModes", "FieldValueRequired"]]);
    expect(fieldsOf("PersistentVolumeClaim", mutate(uploads, ["spec", "resources"], {}))).toEqual([["spec.resources[storage]", "FieldValueRequired"]]);
  });
});

describe("core/v1 immutability", () => {
  const errsOf = (kind: string, oldObj: Obj, newObj: Obj) => validateImmutable(kindDef(kind).schema, oldObj, newObj).map((e) => e.field);

  it("pods: only images, deadlines, tolerations and grace periods change", () => {
    const [pod] = sampleFor("Pod");
    expect(errsOf("Pod", pod, mutate(pod, ["spec", "containers", 0, "image"], "registry.example.com/shop/storefront:1.43.0"))).toEqual([]);
    expect(errsOf("Pod", pod, mutate(pod, ["spec", "activeDeadlineSeconds"], 600))).toEqual([]);
    expect(errsOf("Pod", pod, mutate(pod, ["spec", "containers", 0, "args"], ["serve"]))).toEqual(["spec.containers[0].args"]);
    expect(errsOf("Pod", pod, mutate(pod, ["spec", "serviceAccountName"], "other"))).toEqual(["spec.serviceAccountName"]);
  });

  it("immutable config maps and secrets keep their data", () => {
    const [, frozen] = sampleFor("ConfigMap");
    expect(configMapUpdateErrors(frozen, mutate(frozen, ["data", "fluent-bit.yaml"], "x")).map((e) => [e.field, e.type])).toEqual([["data", "FieldValueForbidden"]]);
    expect(configMapUpdateErrors(frozen, mutate(frozen, ["metadata", "labels"], { a: "b" }))).toEqual([]);
    expect(configMapUpdateErrors(frozen, mutate(frozen, ["immutable"], false)).map((e) => e.field)).toEqual(["immutable"]);
    const [opaque, , , basic] = sampleFor("Secret");
    expect(secretUpdateErrors(opaque, mutate(opaque, ["data"], {}))).toEqual([]);
    expect(secretUpdateErrors(basic, mutate(basic, ["data", "password"], b64("new"))).map((e) => e.field)).toEqual(["data"]);
  });

  it("templates of replication controllers stay mutable", () => {
    const [rc] = sampleFor("ReplicationController");
    expect(errsOf("ReplicationController", rc, mutate(rc, ["spec", "template", "spec", "containers", 0, "args"], ["-m", "2048"]))).toEqual([]);
  });

  it("services keep their cluster IP; secrets their type; claims their class", () => {
    const lb = sampleFor("Service")[3];
    expect(errsOf("Service", lb, mutate(lb, ["spec", "clusterIP"], "10.96.0.99"))).toEqual(["spec.clusterIP"]);
    expect(errsOf("Service", lb, mutate(lb, ["spec", "ports", 0, "port"], 8443))).toEqual([]);
    const tls = sampleFor("Secret")[1];
    expect(errsOf("Secret", tls, mutate(tls, ["type"], "Opaque"))).toEqual(["type"]);
    const claim = sampleFor("PersistentVolumeClaim")[2];
    expect(errsOf("PersistentVolumeClaim", claim, mutate(claim, ["spec", "storageClassName"], "slow"))).toEqual(["spec.storageClassName"]);
    expect(errsOf("PersistentVolumeClaim", claim, mutate(claim, ["spec", "resources", "requests", "storage"], "80Gi"))).toEqual([]);
    const pv = sampleFor("PersistentVolume")[0];
    expect(errsOf("PersistentVolume", pv, mutate(pv, ["spec", "csi", "volumeHandle"], "vol-other"))).toEqual(["spec.csi"]);
  });
});

describe("core/v1 table cells", () => {
  const cell = (kind: string, column: string, obj: Obj) => {
    const col = kindDef(kind).tableColumns?.find((c) => c.name === column);
    if (!col?.cell) throw new Error(`no column ${column}`);
    return col.cell(obj);
  };

  it("human ages", () => {
    const s = 1000;
    expect([0, 59, 119].map((x) => humanDuration(x * s))).toEqual(["0s", "59s", "119s"]);
    expect(humanDuration(330 * s)).toBe("5m30s");
    expect(humanDuration(45 * 60 * s)).toBe("45m");
    expect(humanDuration(200 * 60 * s)).toBe("3h20m");
    expect(humanDuration(10 * 3600 * s)).toBe("10h");
    expect(humanDuration(74 * 3600 * s)).toBe("3d2h");
    expect(humanDuration(20 * 86400 * s)).toBe("20d");
    expect(humanDuration(800 * 86400 * s)).toBe("2y70d");
    expect(humanDuration(-5 * s)).toBe("<invalid>");
  });

  it("pods: READY, STATUS, RESTARTS and wide columns", () => {
    const [web, redis] = sampleFor("Pod");
    const now = Date.parse("2026-11-21T04:41:07Z");
    expect(summarizePod(redis, now)).toEqual({ ready: "1/1", status: "Running", restarts: "2 (120m ago)" });
    expect(cell("Pod", "IP", redis)).toBe("10.244.3.17");
    expect(cell("Pod", "Node", redis)).toBe("worker-3");
    expect(cell("Pod", "Nominated Node", redis)).toBe("<none>");
    expect(summarizePod(web)).toEqual({ ready: "0/2", status: "", restarts: "0" });
    expect(cell("Pod", "Readiness Gates", web)).toBe("0/1");
    const waiting = mutate(redis, ["status", "containerStatuses", 0, "state"], { waiting: { reason: "CrashLoopBackOff" } });
    expect(summarizePod(waiting, now).status).toBe("CrashLoopBackOff");
    const init = mutate(web, ["status"], { phase: "Pending", initContainerStatuses: [{ name: "wait-for-db", ready: false, restartCount: 0, image: "x", imageID: "", state: { running: {} } }] });
    expect(summarizePod(init).status).toBe("Init:0/2");
    expect(summarizePod(mutate(redis, ["metadata", "deletionTimestamp"], "2026-11-21T04:00:00Z")).status).toBe("Terminating");
    expect(kindDef("Pod").tableColumns?.map((c) => [c.name, c.priority ?? 0])).toEqual([
      ["Ready", 0],
      ["Status", 0],
      ["Restarts", 0],
      ["Age", 0],
      ["IP", 1],
      ["Node", 1],
      ["Nominated Node", 1],
      ["Readiness Gates", 1],
    ]);
  });

  it("services, endpoints and nodes", () => {
    const [web, , nodePort, lb, external] = sampleFor("Service");
    expect(servicePorts(web)).toBe("80/TCP,9090/TCP");
    expect(servicePorts(nodePort)).toBe("443:30443/TCP");
    expect(serviceExternalIP(web)).toBe("<none>");
    expect(serviceExternalIP(lb)).toBe("203.0.113.10,gw-1234.lb.example.net");
    expect(serviceExternalIP(external)).toBe("orders.cluster-abc123.eu-west-1.db.example.net");
    expect(serviceExternalIP(mutate(lb, ["status"], {}))).toBe("<pending>");
    const [legacy] = sampleFor("Endpoints");
    expect(formatEndpoints(legacy)).toBe("10.20.30.40:8443,10.20.30.41:8443");
    const [worker, edge] = sampleFor("Node");
    expect(nodeStatusCell(worker)).toBe("Ready,SchedulingDisabled");
    expect(nodeStatusCell(edge)).toBe("Unknown");
    expect(nodeRoles(worker, profile)).toBe("worker");
    expect(cell("Node", "Internal-IP", worker)).toBe("10.0.12.7");
    expect(cell("Node", "Version", worker)).toBe("v1.35.0");
  });

  it("events, secrets, config maps, volumes and quotas", () => {
    const [legacy, modern] = sampleFor("Event");
    expect(cell("Event", "Object", legacy)).toBe("pod/storefront-web-7d9c8b6f5-x2kqp");
    expect(cell("Event", "Count", legacy)).toBe(14);
    expect(cell("Event", "Count", modern)).toBe(3);
    expect(cell("Event", "Source", legacy)).toBe("kubelet, worker-3");
    expect(cell("Event", "Source", modern)).toBe("deployment-controller, controller-manager-7c9f-abcde");
    expect(cell("Secret", "Data", sampleFor("Secret")[1])).toBe(2);
    expect(cell("ConfigMap", "Data", sampleFor("ConfigMap")[0])).toBe(4);
    const [pv] = sampleFor("PersistentVolume");
    expect(cell("PersistentVolume", "Claim", pv)).toBe("shop/data-redis-0");
    expect(cell("PersistentVolume", "Access Modes", sampleFor("PersistentVolume")[1])).toBe("ROX,RWX");
    expect(cell("PersistentVolumeClaim", "Capacity", sampleFor("PersistentVolumeClaim")[2])).toBe("20Gi");
    expect(cell("PersistentVolumeClaim", "VolumeAttributesClass", sampleFor("PersistentVolumeClaim")[0])).toBe("<unset>");
    const [quota] = sampleFor("ResourceQuota");
    expect(cell("ResourceQuota", "Limit", quota)).toBe("limits.cpu: 9/40, limits.memory: 18Gi/128Gi");
    expect(String(cell("ResourceQuota", "Request", quota))).toContain("pods: 37/200");
  });

  it("pod QoS classes and quantities", () => {
    const [web, redis, batch] = sampleFor("Pod").map((p) => defaulted(kindDef("Pod"), p));
    expect(podQOSClass(web)).toBe("Burstable");
    expect(podQOSClass(redis)).toBe("Burstable");
    expect(podQOSClass(batch)).toBe("Guaranteed");
    expect(initialPodStatus(batch)).toEqual({ phase: "Pending", qosClass: "Guaranteed" });
    const bare = { spec: { containers: [{ name: "a", image: "x" }] } };
    expect(podQOSClass(bare)).toBe("BestEffort");
    const sumsMatch = { spec: { containers: [0.1, 0.2].map((cpu, i) => ({ name: `c${i}`, resources: { requests: { cpu, memory: "1Gi" }, limits: { cpu: `${cpu * 1000}m`, memory: "1024Mi" } } })) } };
    expect(podQOSClass(sumsMatch)).toBe("Guaranteed");
    expect(quantityNanos("100m")).toBe(100_000_000n);
    expect(quantityNanos("1Ki")).toBe(1024n * 10n ** 9n);
    expect(quantityNanos("1.5")).toBe(1_500_000_000n);
    expect(quantityNanos("1e3")).toBe(1000n * 10n ** 9n);
    expect(quantityNanos("1n")).toBe(1n);
    expect(quantityNanos("bogus")).toBeUndefined();
  });

  it("image tags", () => {
    expect(imageTag("nginx")).toBe("latest");
    expect(imageTag("registry.example.com:5000/team/app")).toBe("latest");
    expect(imageTag("registry.example.com:5000/team/app:1.2")).toBe("1.2");
    expect(imageTag("app@sha256:abc")).toBe("");
    expect(imageTag("app:1.0@sha256:abc")).toBe("1.0");
  });
});
