import { describe, expect, it } from "vitest";
import { formatFieldError } from "./field-errors.ts";
import { validateObjectMeta, type ObjectMetaOptions } from "./object-meta.ts";

const NAMESPACED: ObjectMetaOptions = { namespaced: true };
const CLUSTER: ObjectMetaOptions = { namespaced: false };
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

function lines(meta: unknown, opts: ObjectMetaOptions): string[] {
  return validateObjectMeta(meta, opts).map(formatFieldError);
}

describe("validateObjectMeta", () => {
  it.each<[string, unknown, ObjectMetaOptions, string[]]>([
    ["a valid namespaced object", { name: "web.v1", namespace: "default", labels: { app: "web" } }, NAMESPACED, []],
    ["a valid cluster object", { name: "node-1" }, CLUSTER, []],
    ["name or generateName", { namespace: "default" }, NAMESPACED, ["metadata.name: Required value: name or generateName is required"]],
    ["generateName alone is enough", { generateName: "web-", namespace: "default" }, NAMESPACED, []],
    ["a bad generateName", { generateName: "Web-", namespace: "default" }, NAMESPACED, [expect.stringMatching(/^metadata\.generateName: Invalid value: "Web-": a lowercase RFC 1123 subdomain/)]],
    ["a bad name", { name: "Web", namespace: "default" }, NAMESPACED, [expect.stringMatching(/^metadata\.name: Invalid value: "Web": a lowercase RFC 1123 subdomain/)]],
    ["label name format", { name: "a.b" }, { namespaced: false, nameFormat: "dns1123-label" }, ['metadata.name: Invalid value: "a.b": must not contain dots']],
    ["path-segment names", { name: "system:admin" }, { namespaced: false, nameFormat: "path-segment-name" }, []],
    ["path-segment names reject slashes", { name: "a/b" }, { namespaced: false, nameFormat: "path-segment-name" }, [`metadata.name: Invalid value: "a/b": may not contain '/'`]],
    ["namespace required", { name: "x" }, NAMESPACED, ["metadata.namespace: Required value"]],
    ["namespace format", { name: "x", namespace: "Bad_NS" }, NAMESPACED, [`metadata.namespace: Invalid value: "Bad_NS": ${LABEL_MSG}`]],
    ["namespace forbidden", { name: "x", namespace: "default" }, CLUSTER, ["metadata.namespace: Forbidden: not allowed on this type"]],
    ["negative generation", { name: "x", generation: -1 }, CLUSTER, ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]],
    [
      "label keys and values",
      { name: "x", labels: { "-bad": "ok", good: "bad value", "a/b/c": "" } },
      CLUSTER,
      [
        expect.stringMatching(/^metadata\.labels: Invalid value: "-bad": name part must consist of alphanumeric characters/),
        expect.stringMatching(/^metadata\.labels: Invalid value: "bad value": a valid label must be an empty string/),
        expect.stringMatching(/^metadata\.labels: Invalid value: "a\/b\/c": a qualified name must consist of/),
      ],
    ],
    ["annotation keys ignore case", { name: "x", annotations: { "Example.COM/Key": "anything at all" } }, CLUSTER, []],
    ["annotation key format", { name: "x", annotations: { "a b": "v" } }, CLUSTER, [expect.stringMatching(/^metadata\.annotations: Invalid value: "a b": name part must consist/)]],
    ["annotations total size", { name: "x", annotations: { a: "x".repeat(256 * 1024) } }, CLUSTER, ["metadata.annotations: Too long: must have at most 262144 bytes"]],
    ["annotations at the limit", { name: "x", annotations: { a: "x".repeat(256 * 1024 - 1) } }, CLUSTER, []],
    ["finalizer names", { name: "x", finalizers: ["example.com/cleanup", "bad name"] }, CLUSTER, [expect.stringMatching(/^metadata\.finalizers: Invalid value: "bad name": name part/)]],
    [
      "conflicting deletion finalizers",
      { name: "x", finalizers: ["orphan", "foregroundDeletion"] },
      CLUSTER,
      ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set'],
    ],
    [
      "owner references",
      { name: "x", ownerReferences: [{ apiVersion: "apps/", kind: "", name: "a", uid: "1" }] },
      CLUSTER,
      ['metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty', 'metadata.ownerReferences.kind: Invalid value: "": must not be empty'],
    ],
    [
      "one controller only",
      {
        name: "x",
        ownerReferences: [
          { apiVersion: "v1", kind: "A", name: "a", uid: "1", controller: true },
          { apiVersion: "v1", kind: "B", name: "b", uid: "2", controller: true },
        ],
      },
      CLUSTER,
      [expect.stringMatching(/: Only one reference can have Controller set to true\. Found "true" in references for A\/a and B\/b$/)],
    ],
    [
      "managed fields",
      { name: "x", managedFields: [{ manager: "m", operation: "Patch", fieldsType: "FieldsV2" }] },
      CLUSTER,
      ['metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`', 'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`'],
    ],
  ])("%s", (_name, meta, opts, expected) => {
    expect(lines(meta, opts)).toEqual(expected);
  });

  it("takes a custom base path and tolerates non-objects", () => {
    expect(lines(undefined, { namespaced: false, basePath: "spec.template.metadata" })).toEqual([
      "spec.template.metadata.name: Required value: name or generateName is required",
    ]);
  });
});
