import { describe, expect, it } from "vitest";
import { JsonPathError, renderJsonPath } from "./jsonpath.ts";

const LIST = {
  kind: "List",
  items: [
    { metadata: { name: "a", labels: { "app.kubernetes/name": "x" } }, spec: { replicas: 1, ports: [{ port: 80 }, { port: 443 }] } },
    { metadata: { name: "b" }, spec: { replicas: 3, ports: [{ port: 8080 }] } },
  ],
};

describe("renderJsonPath", () => {
  const table: Array<[string, string]> = [
    ["{.kind}", "List"],
    [".kind", "List"],
    ["{.items[*].metadata.name}", "a b"],
    ["{.items[0].metadata.name}", "a"],
    ["{.items[-1].metadata.name}", "b"],
    ["{.items[0:1].metadata.name}", "a"],
    ["{..port}", "80 443 8080"],
    ["{.items[0].metadata.labels['app.kubernetes/name']}", "x"],
    ['{.items[?(@.metadata.name=="b")].spec.replicas}', "3"],
    ["{.items[?(@.spec.replicas>1)].metadata.name}", "b"],
    ["{.items[?(@.metadata.labels)].metadata.name}", "a"],
    ['{range .items[*]}{.metadata.name}{"\\t"}{.spec.replicas}{"\\n"}{end}', "a\t1\nb\t3\n"],
    ["name={.items[1].metadata.name}!", "name=b!"],
    ["{.items[0].spec.ports[0]}", '{"port":80}'],
    ["{.missing.field}", ""],
  ];
  it.each(table)("%s", (template, out) => {
    expect(renderJsonPath(template, LIST)).toBe(out);
  });

  it.each([["{.items[5].metadata.name}"], ["{range .items[*]}{.x}"], ["{.items[}"], ["{end}"]])("refuses %s", (template) => {
    expect(() => renderJsonPath(template, LIST)).toThrow(JsonPathError);
  });
});
