/** The embedded default's controller list names known controllers and runs the legacy token cleaner. */
import { describe, expect, it } from "vitest";
import { selectControllers } from "../controller-manager/controllers.ts";
import { EMBEDDED_CONTROLLERS } from "./controllers.ts";

describe("the embedded default's controllers", () => {
  it("are all known to the controller manager", () => {
    expect(selectControllers(EMBEDDED_CONTROLLERS).size).toBe(EMBEDDED_CONTROLLERS.length);
  });

  it("include the legacy service account token cleaner", () => {
    expect(selectControllers(EMBEDDED_CONTROLLERS).has("legacy-serviceaccount-token-cleaner-controller")).toBe(true);
  });
});
