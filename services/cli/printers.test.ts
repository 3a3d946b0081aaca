import { describe, expect, it } from "vitest";
import { alignColumns, parseOutput, tableRows, withoutManagedFields } from "./printers.ts";

describe("printers", () => {
  it("aligns cells like tabwriter with padding 3 and an unpadded last column", () => {
    expect(alignColumns([["NAME", "DATA", "AGE"], ["alpha", "1", "5s"], ["b", "10", "3m"]])).toBe("NAME    DATA   AGE\nalpha   1      5s\nb       10     3m\n");
  });

  it("table rows: priority columns only when wide, NAMESPACE first, <none> for empty cells, kind-prefixed names", () => {
    const table = {
      columnDefinitions: [{ name: "Name" }, { name: "Ready" }, { name: "Images", priority: 1 }],
      rows: [{ cells: ["web", null, "nginx"], object: { metadata: { namespace: "ns1" } } }],
    };
    expect(tableRows(table, { wide: false, withNamespace: false })).toEqual([["NAME", "READY"], ["web", "<none>"]]);
    expect(tableRows(table, { wide: true, withNamespace: true, namePrefix: "deployment.apps" })).toEqual([
      ["NAMESPACE", "NAME", "READY", "IMAGES"],
      ["ns1", "deployment.apps/web", "<none>", "nginx"],
    ]);
    expect(tableRows(table, { wide: false, withNamespace: false, headers: false })).toEqual([["web", "<none>"]]);
  });

  it("output formats", () => {
    expect(parseOutput(undefined)).toEqual({ kind: "table", wide: false });
    expect(parseOutput("wide")).toEqual({ kind: "table", wide: true });
    expect(parseOutput("jsonpath={.a}")).toEqual({ kind: "jsonpath", template: "{.a}" });
    expect(() => parseOutput("xml")).toThrow(/unable to match a printer suitable for the output format "xml"/);
    expect(() => parseOutput("jsonpath={.a")).toThrow();
  });

  it("drops managedFields only", () => {
    expect(withoutManagedFields({ metadata: { name: "x", managedFields: [] }, data: {} })).toEqual({ metadata: { name: "x" }, data: {} });
  });
});
