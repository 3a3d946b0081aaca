import { describe, expect, it } from "vitest";
import { AUTHORIZER_TYPE, AuthzSession, createEnvironment, evaluateWithAuthorizer, newAuthorizer, type AuthzQuery } from "../index.ts";

const env = createEnvironment({ variables: { authorizer: AUTHORIZER_TYPE } });
const alice = { username: "alice", groups: ["devs"] };

/** Allows `delete` of deployments in namespace "team", and GET of /healthz; errors for the verb "boom". */
async function authorize(q: AuthzQuery) {
  if (q.verb === "boom") throw new Error("webhook unreachable");
  if (!q.isResourceRequest) return q.path === "/healthz" && q.verb === "get" ? { decision: "Allow" as const, reason: "path ok" } : { decision: "NoOpinion" as const, reason: "" };
  const ok = q.user.username === "alice" && q.group === "apps" && q.resource === "deployments" && q.namespace === "team" && q.verb === "delete";
  return ok ? { decision: "Allow" as const, reason: `allowed ${q.name}` } : { decision: "Deny" as const, reason: `denied ${q.user.username}` };
}

async function run(source: string): Promise<{ value: unknown; asked: AuthzQuery[] }> {
  const session = new AuthzSession();
  const asked: AuthzQuery[] = [];
  const authorizer = newAuthorizer(session, alice, { group: "apps", version: "v1", resource: "deployments", subresource: "", namespace: "team", name: "web" });
  const program = env.compile(source);
  const value = await evaluateWithAuthorizer(session, () => program.evaluate({ authorizer }).value, (q) => (asked.push(q), authorize(q)));
  return { value, asked };
}

describe("authorizer library", () => {
  const rows: [string, unknown][] = [
    ["authorizer.group('apps').resource('deployments').namespace('team').check('delete').allowed()", true],
    ["authorizer.group('apps').resource('deployments').namespace('other').check('delete').allowed()", false],
    ["authorizer.group('apps').resource('deployments').namespace('team').name('x').check('delete').reason()", "allowed x"],
    ["authorizer.group('apps').resource('deployments').check('delete').reason()", "denied alice"],
    ["authorizer.requestResource.check('delete').allowed()", true],
    ["authorizer.requestResource.subresource('scale').check('delete').allowed()", true],
    ["authorizer.serviceAccount('team', 'bot').group('apps').resource('deployments').namespace('team').check('delete').allowed()", false],
    ["authorizer.path('/healthz').check('get').allowed()", true],
    ["authorizer.path('/metrics').check('get').allowed()", false],
    ["authorizer.group('').resource('pods').check('boom').errored()", true],
    ["authorizer.group('').resource('pods').check('boom').error()", "webhook unreachable"],
    ["authorizer.group('').resource('pods').check('get').errored()", false],
    // a check whose arguments depend on an earlier decision
    ["authorizer.group('apps').resource('deployments').namespace(authorizer.requestResource.check('delete').allowed() ? 'team' : 'x').check('delete').allowed()", true],
  ];
  it.each(rows)("%s → %j", async (source, want) => {
    expect((await run(source)).value).toEqual(want);
  });

  it("asks the authorizer with the check's attributes, the request version only for requestResource", async () => {
    const { asked } = await run("authorizer.group('apps').resource('deployments').subresource('scale').namespace('team').name('web').check('update').allowed() || authorizer.requestResource.check('get').allowed()");
    expect(asked).toEqual([
      expect.objectContaining({ verb: "update", isResourceRequest: true, group: "apps", version: "*", resource: "deployments", subresource: "scale", namespace: "team", name: "web" }),
      expect.objectContaining({ verb: "get", group: "apps", version: "v1", resource: "deployments", namespace: "team", name: "web" }),
    ]);
  });

  it("checks a service account as its user and groups", async () => {
    const { asked } = await run("authorizer.serviceAccount('team', 'bot').path('/x').check('get').allowed()");
    expect(asked[0].user).toEqual({ username: "system:serviceaccount:team:bot", groups: ["system:serviceaccounts", "system:serviceaccounts:team"] });
  });

  const errors: [string, string][] = [
    ["authorizer.path(' ').check('get').allowed()", "path must not be empty"],
    ["authorizer.group('apps').resource('').check('get').allowed()", "resource must not be empty"],
    ["authorizer.serviceAccount('team', 'Bad_Name').path('/x').check('get').allowed()", "Invalid service account name"],
    ["authorizer.serviceAccount('a.b', 'bot').path('/x').check('get').allowed()", "Invalid service account namespace"],
  ];
  it.each(errors)("%s fails with %s", async (source, want) => {
    await expect(run(source)).rejects.toThrow(want);
  });

  it("is typed: a decision is not a bool", () => {
    expect(() => env.compile("authorizer.path('/x').check('get') == true")).toThrow(/compilation failed/);
  });
});
