/** `--controllers` selection as a table: `*`, names, aliases, `-name`, unknown names. */
import { describe, expect, it } from "vitest";
import { selectControllers } from "./controllers.ts";

describe("--controllers", () => {
  const table: Array<[string[], string[]]> = [
    [["*"], ["garbage-collector-controller", "namespace-controller"]],
    [[], []],
    [["namespace"], ["namespace-controller"]],
    [["garbage-collector-controller"], ["garbage-collector-controller"]],
    [["*", "-garbagecollector"], ["namespace-controller"]],
    [["-namespace", "*"], ["garbage-collector-controller"]],
    [["namespace", "-namespace"], []],
    [["*", "-namespace-controller", "-garbage-collector-controller"], []],
  ];
  for (const [spec, want] of table) {
    it(JSON.stringify(spec), () => expect([...selectControllers(spec)].sort()).toEqual(want));
  }

  it("refuses an unknown name like the platform", () => {
    expect(() => selectControllers(["*", "nodelifecycle"])).toThrow('"nodelifecycle" is not in the list of known controllers');
    expect(() => selectControllers(["-bogus"])).toThrow('"bogus" is not in the list of known controllers');
  });
});
