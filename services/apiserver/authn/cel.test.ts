import { describe, expect, it } from "vitest";
import { celErrorText, compileExpression } from "./cel.ts";

const SECRET = "SECRET-9d01";

describe("authentication CEL expressions", () => {
  const cases: [string, "claims" | "user", Record<string, unknown>, unknown][] = [
    ['"oidc:" + claims.sub', "claims", { sub: "jane" }, "oidc:jane"],
    ['claims.roles.map(r, "role:" + r)', "claims", { roles: ["dev", "ops"] }, ["role:dev", "role:ops"]],
    ["claims.exp > 5 && claims.n == 1.5", "claims", { exp: 10, n: 1.5 }, true],
    ["claims.?email.orValue('none')", "claims", {}, "none"],
    ["claims.sub.matches('(a+)+$')", "claims", { sub: "a".repeat(50) + "b" }, false],
    ["claims.sub.find('[0-9]+')", "claims", { sub: "user-42" }, "42"],
    ["!user.username.endsWith(':root')", "user", { username: "x:root", groups: [], extra: {} }, false],
  ];
  it.each(cases)("%s", (source, variable, input, want) => {
    expect(compileExpression(source, variable).evaluate(input)).toEqual(want);
  });

  const failures: [string, Record<string, unknown>, RegExp][] = [
    ["int(claims.sub) > 0", { sub: SECRET }, /^int\(\) conversion error at 1:1$/],
    ["claims.groups[claims.sub] == 'x'", { sub: SECRET, groups: {} }, /^no such key/],
    ["claims.roles.all(a, claims.roles.all(b, claims.roles.all(c, c != '')))", { roles: Array.from({ length: 200 }, (_, i) => `r${i}`) }, /^operation cancelled: actual cost limit exceeded$/],
  ];
  it.each(failures)("reports %s without claim values", (source, input, want) => {
    let text = "";
    try {
      compileExpression(source, "claims").evaluate(input);
    } catch (err) {
      text = celErrorText(err);
    }
    expect(text).toMatch(want);
    expect(text).not.toContain(SECRET);
  });

  it("refuses an invalid literal regular expression at load", () => {
    expect(() => compileExpression("claims.sub.matches('[')", "claims")).toThrow(/^compilation failed: invalid regular expression/);
  });
});
