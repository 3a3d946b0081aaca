/** `--controllers` selection as a table: `*`, names, aliases, `-name`, off-by-default controllers, unknown names. */
import { describe, expect, it } from "vitest";
import { KNOWN_CONTROLLERS, selectControllers } from "./controllers.ts";

const OFF_BY_DEFAULT = ["bootstrap-signer-controller", "token-cleaner-controller"];
const ALL_ON = KNOWN_CONTROLLERS.filter((n) => !OFF_BY_DEFAULT.includes(n)).sort();

describe("--controllers", () => {
  const table: Array<[string[], string[]]> = [
    [["*"], ALL_ON],
    [[], []],
    [["namespace"], ["namespace-controller"]],
    [["garbage-collector-controller"], ["garbage-collector-controller"]],
    [["*", "-garbagecollector"], ALL_ON.filter((n) => n !== "garbage-collector-controller")],
    [["-namespace", "*"], ALL_ON.filter((n) => n !== "namespace-controller")],
    [["namespace", "-namespace"], []],
    [["serviceaccount", "namespace-controller"], ["namespace-controller", "serviceaccount-controller"]],
  ];
  for (const [spec, want] of table) {
    it(JSON.stringify(spec), () => expect([...selectControllers(spec)].sort()).toEqual(want));
  }

  it("keeps the controllers the platform leaves off by default off under '*'", () => {
    const on = selectControllers(["*"]);
    for (const name of OFF_BY_DEFAULT) if (KNOWN_CONTROLLERS.includes(name)) expect(on.has(name as never)).toBe(false);
  });

  it("runs the legacy service account token cleaner under '*', as the platform's default", () => {
    expect(selectControllers(["*"]).has("legacy-serviceaccount-token-cleaner-controller")).toBe(true);
    expect(selectControllers(["*", "-legacy-service-account-token-cleaner"]).has("legacy-serviceaccount-token-cleaner-controller")).toBe(false);
  });

  it("refuses an unknown name like the platform", () => {
    expect(() => selectControllers(["*", "nodelifecycles"])).toThrow('"nodelifecycles" is not in the list of known controllers');
    expect(() => selectControllers(["-bogus"])).toThrow('"bogus" is not in the list of known controllers');
  });
});
