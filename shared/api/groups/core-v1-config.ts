/**
 * core/v1 namespace-level and configuration kinds: Namespace, ConfigMap,
 * Secret, ServiceAccount, Event, LimitRange, ResourceQuota. Kinds that need
 * platform names (labels, secret types) are functions of the profile.
 */
import { bool, bytes, enumOf, list, mapOf, obj, str, tag, time } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition } from "../../schema/types.ts";
import type { PlatformProfile } from "../../platform/index.ts";
import { ageColumn, listAt, objAt, strAt } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { C, conditionStatus, localObjectReference, objectReference } from "./core-v1-common.ts";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// ---- Namespace ----

export const NAMESPACE_PHASES = ["Active", "Terminating"];

export const namespaceCondition = C(
  "NamespaceCondition",
  obj(
    { type: tag(1, str()), status: tag(2, conditionStatus()), lastTransitionTime: tag(4, time()), reason: tag(5, str()), message: tag(6, str()) },
    { required: ["type", "status"], description: "A namespace condition." },
  ),
);

export const namespaceSpec = C(
  "NamespaceSpec",
  obj({ finalizers: tag(1, list(str(), { listType: "atomic", description: "Finalizers that must be empty before the namespace is removed." })) }),
);

export const namespaceStatus = C(
  "NamespaceStatus",
  obj({
    phase: tag(1, enumOf(NAMESPACE_PHASES, { default: "Active", description: "Lifecycle phase." })),
    conditions: tag(2, list(namespaceCondition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" })),
  }),
);

export function namespaceKind(profile: PlatformProfile): KindDefinition {
  return {
    group: "core",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    singular: "namespace",
    namespaced: false,
    shortNames: ["ns"],
    subresources: ["status", "finalize"],
    nameFormat: "dns1123-label",
    schema: C("Namespace", objectKind({ spec: tag(2, namespaceSpec), status: tag(3, namespaceStatus) })),
    tableColumns: [{ name: "Status", type: "string", description: "Phase of the namespace.", cell: (o) => strAt(o, "status.phase") }, ageColumn],
    protobuf: true,
    allowUnconditionalUpdate: true,
    selectableFields: ["status.phase"],
    defaulter: (ns) => {
      const meta = isObj(ns.metadata) ? ns.metadata : (ns.metadata = {});
      if (typeof meta.name === "string" && meta.name !== "") {
        const labels = isObj(meta.labels) ? meta.labels : (meta.labels = {});
        labels[profile.labels.metadataName] = meta.name;
      }
      const status = isObj(ns.status) ? ns.status : (ns.status = {});
      if (!status.phase) status.phase = "Active";
    },
  };
}

// ---- ConfigMap ----

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
/** Maximum total size of a ConfigMap's or Secret's data. */
export const MAX_DATA_BYTES = 1024 * 1024;

function validateKeys(map: unknown, base: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of Object.keys(isObj(map) ? map : {})) {
    const p = `${base}[${k}]`;
    if (k.length > 253) errs.push(fieldErrors.invalid(p, k, "must be no more than 253 characters"));
    if (!CONFIG_KEY.test(k)) errs.push(fieldErrors.invalid(p, k, CONFIG_KEY_MSG));
    if (k === "." || k === "..") errs.push(fieldErrors.invalid(p, k, `must not be '${k}'`));
    else if (k.startsWith("..")) errs.push(fieldErrors.invalid(p, k, "must not start with '..'"));
  }
  return errs;
}

function dataBytes(map: unknown, base64: boolean): number {
  let n = 0;
  for (const v of Object.values(isObj(map) ? map : {})) {
    if (typeof v !== "string") continue;
    n += base64 ? Buffer.from(v, "base64").length : Buffer.byteLength(v, "utf8");
  }
  return n;
}

function validateConfigMap(cm: Obj): FieldError[] {
  const errs = [...validateKeys(cm.data, "data"), ...validateKeys(cm.binaryData, "binaryData")];
  const data = isObj(cm.data) ? cm.data : {};
  for (const k of Object.keys(isObj(cm.binaryData) ? cm.binaryData : {})) {
    if (k in data) errs.push(fieldErrors.invalid(`binaryData[${k}]`, k, "duplicate of key present in data"));
  }
  if (dataBytes(cm.data, false) + dataBytes(cm.binaryData, true) > MAX_DATA_BYTES) errs.push(fieldErrors.tooLong("", MAX_DATA_BYTES));
  return errs;
}

export const configMapKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  singular: "configmap",
  namespaced: true,
  shortNames: ["cm"],
  schema: C(
    "ConfigMap",
    objectKind({
      immutable: tag(4, bool({ description: "When true, data and binaryData can no longer change." })),
      data: tag(2, mapOf(str(), { description: "UTF-8 configuration data." })),
      binaryData: tag(3, mapOf(bytes(), { description: "Binary configuration data (base64 in JSON)." })),
    }),
  ),
  tableColumns: [
    { name: "Data", type: "string", description: "Number of data entries.", cell: (o) => Object.keys(objAt(o, "data")).length + Object.keys(objAt(o, "binaryData")).length },
    ageColumn,
  ],
  protobuf: true,
  allowUnconditionalUpdate: true,
  validateKind: validateConfigMap,
};

// ---- Secret ----

/** Folds the write-only `stringData` into `data` (base64), overwriting keys; removes `stringData`. */
function foldStringData(secret: Obj): void {
  if (!("stringData" in secret)) return;
  const sd = secret.stringData;
  delete secret.stringData;
  if (!isObj(sd) || Object.keys(sd).length === 0) return;
  const data = isObj(secret.data) ? secret.data : (secret.data = {});
  for (const [k, v] of Object.entries(sd)) if (typeof v === "string") data[k] = Buffer.from(v, "utf8").toString("base64");
}

function secretValidator(profile: PlatformProfile): (secret: Obj) => FieldError[] {
  const t = profile.secretTypes;
  return (secret) => {
    const errs = validateKeys(secret.data, "data");
    const data = isObj(secret.data) ? secret.data : {};
    const has = (k: string) => k in data;
    const nonEmpty = (k: string) => typeof data[k] === "string" && data[k] !== "";
    const jsonKey = (k: string) => {
      if (!has(k)) {
        errs.push(fieldErrors.required(`data[${k}]`));
        return;
      }
      try {
        JSON.parse(Buffer.from(String(data[k]), "base64").toString("utf8"));
      } catch (e) {
        errs.push(fieldErrors.invalid(`data[${k}]`, "<secret contents redacted>", (e as Error).message));
      }
    };
    switch (secret.type) {
      case t.serviceAccountToken: {
        const name = objAt(secret, "metadata.annotations")[profile.annotations.serviceAccountName];
        if (typeof name !== "string" || name === "") errs.push(fieldErrors.required(`metadata.annotations[${profile.annotations.serviceAccountName}]`));
        break;
      }
      case t.dockercfg:
        jsonKey(".dockercfg");
        break;
      case t.dockerConfigJson:
        jsonKey(".dockerconfigjson");
        break;
      case t.basicAuth:
        if (!has("username") && !has("password")) {
          errs.push(fieldErrors.required("data[username]"));
          errs.push(fieldErrors.required("data[password]"));
        }
        break;
      case t.sshAuth:
        if (!nonEmpty("ssh-privatekey")) errs.push(fieldErrors.required("data[ssh-privatekey]"));
        break;
      case t.tls:
        if (!has("tls.crt")) errs.push(fieldErrors.required("data[tls.crt]"));
        if (!has("tls.key")) errs.push(fieldErrors.required("data[tls.key]"));
        break;
    }
    if (dataBytes(secret.data, true) > MAX_DATA_BYTES) errs.push(fieldErrors.tooLong("data", MAX_DATA_BYTES));
    return errs;
  };
}

export function secretKind(profile: PlatformProfile): KindDefinition {
  return {
    group: "core",
    version: "v1",
    kind: "Secret",
    plural: "secrets",
    singular: "secret",
    namespaced: true,
    schema: C(
      "Secret",
      objectKind({
        immutable: tag(5, bool({ description: "When true, data can no longer change." })),
        data: tag(2, mapOf(bytes(), { description: "Secret data (base64 in JSON)." })),
        stringData: tag(4, mapOf(str(), { description: "Write-only plain-text data, merged into data on write." })),
        type: tag(3, str({ default: "Opaque", immutable: true, description: "Secret type (Opaque or a platform type)." })),
      }),
    ),
    tableColumns: [
      { name: "Type", type: "string", description: "Secret type.", cell: (o) => strAt(o, "type") },
      { name: "Data", type: "string", description: "Number of data entries.", cell: (o) => Object.keys(objAt(o, "data")).length },
      ageColumn,
    ],
    protobuf: true,
    allowUnconditionalUpdate: true,
    selectableFields: ["type"],
    defaulter: foldStringData,
    validateKind: secretValidator(profile),
  };
}

// ---- immutable ConfigMaps and Secrets (update rules) ----

const IMMUTABLE_SET_MSG = "field is immutable when `immutable` is set";

function sameJSON(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Update rules of a ConfigMap or Secret marked `immutable: true`: the flag
 * stays set and the data fields stay as they are. KindDefinition has no
 * update-time hook yet; the registry strategies call these.
 */
export function immutableDataUpdateErrors(oldObj: Obj, newObj: Obj, dataFields: string[]): FieldError[] {
  if (oldObj.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (newObj.immutable !== true) errs.push(fieldErrors.forbidden("immutable", IMMUTABLE_SET_MSG));
  for (const f of dataFields) if (!sameJSON(oldObj[f], newObj[f])) errs.push(fieldErrors.forbidden(f, IMMUTABLE_SET_MSG));
  return errs;
}

export const configMapUpdateErrors = (oldObj: Obj, newObj: Obj): FieldError[] => immutableDataUpdateErrors(oldObj, newObj, ["data", "binaryData"]);
/** Run after the defaulter has folded stringData into data. */
export const secretUpdateErrors = (oldObj: Obj, newObj: Obj): FieldError[] => immutableDataUpdateErrors(oldObj, newObj, ["data"]);

// ---- ServiceAccount ----

export const serviceAccountKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "ServiceAccount",
  plural: "serviceaccounts",
  singular: "serviceaccount",
  namespaced: true,
  shortNames: ["sa"],
  subresources: ["token"],
  schema: C(
    "ServiceAccount",
    objectKind({
      secrets: tag(
        2,
        list(objectReference, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "Secrets pods of this account may use." }),
      ),
      imagePullSecrets: tag(3, list(localObjectReference, { listType: "atomic", description: "Secrets for pulling images." })),
      automountServiceAccountToken: tag(4, bool({ description: "Mount an API token into pods by default." })),
    }),
  ),
  tableColumns: [{ name: "Secrets", type: "string", description: "Number of secrets.", cell: (o) => listAt(o, "secrets").length }, ageColumn],
  protobuf: true,
  allowUnconditionalUpdate: true,
};
