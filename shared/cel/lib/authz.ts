/**
 * The platform's authorizer library: `authorizer.path(p).check(verb)`,
 * `authorizer.group(g).resource(r)[.subresource(s)][.namespace(ns)][.name(n)]
 * [.fieldSelector(f)][.labelSelector(l)].check(verb)`,
 * `authorizer.serviceAccount(ns, name)`, the field `authorizer.requestResource`
 * and the Decision methods allowed, reason, errored, error.
 *
 * Evaluation is synchronous and the authorizer is not: an `AuthzSession`
 * answers the checks it already knows and records the others as pending (their
 * provisional decision is "no opinion"). The caller evaluates, resolves the
 * pending checks with the real authorizer, and evaluates again until nothing is
 * pending (`evaluateWithAuthorizer`). CEL is pure, so the final evaluation sees
 * every check it makes answered. Pure: no I/O here.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { isDNS1123Label, isDNS1123Subdomain } from "../../schema/formats.ts";
import { CelEvaluationError } from "../errors.ts";

export const AUTHORIZER_TYPE = "kubernetes.authorization.Authorizer";
const PATH_CHECK = "kubernetes.authorization.PathCheck";
const GROUP_CHECK = "kubernetes.authorization.GroupCheck";
const RESOURCE_CHECK = "kubernetes.authorization.ResourceCheck";
const DECISION = "kubernetes.authorization.Decision";

export interface AuthzUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** One question for the authorizer (the platform's authorizer attributes). */
export interface AuthzQuery {
  user: AuthzUser;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

export interface AuthzAnswer {
  decision: "Allow" | "Deny" | "NoOpinion";
  reason: string;
  error?: string;
}

/** Answers known checks; records unknown ones. */
export class AuthzSession {
  readonly #answers = new Map<string, AuthzAnswer>();
  readonly #pending = new Map<string, AuthzQuery>();

  static key(q: AuthzQuery): string {
    return JSON.stringify([q.user.username, q.user.uid ?? "", q.user.groups, q.user.extra ?? {}, q.verb, q.isResourceRequest, q.path, q.group, q.version, q.resource, q.subresource, q.namespace, q.name, q.fieldSelector, q.labelSelector]);
  }

  lookup(q: AuthzQuery): AuthzAnswer {
    const key = AuthzSession.key(q);
    const known = this.#answers.get(key);
    if (known) return known;
    this.#pending.set(key, q);
    return { decision: "NoOpinion", reason: "" };
  }

  /** The checks asked for since the last `resolve`, without an answer. */
  get pending(): readonly AuthzQuery[] {
    return [...this.#pending.values()];
  }

  /** Answers every pending check (errors become errored decisions). */
  async resolve(authorize: (q: AuthzQuery) => Promise<AuthzAnswer>): Promise<void> {
    const pending = [...this.#pending.entries()];
    this.#pending.clear();
    await Promise.all(
      pending.map(async ([key, q]) => {
        let answer: AuthzAnswer;
        try {
          answer = await authorize(q);
        } catch (err) {
          answer = { decision: "NoOpinion", reason: "", error: err instanceof Error ? err.message : String(err) };
        }
        this.#answers.set(key, answer);
      }),
    );
  }
}

export class AuthzDecision {
  constructor(readonly answer: AuthzAnswer) {}
}

export class Authorizer {
  constructor(
    readonly session: AuthzSession,
    readonly user: AuthzUser,
    /** The request's own resource (`authorizer.requestResource`), when there is a request. */
    readonly requestResource?: ResourceCheck,
  ) {}
}

export class PathCheck {
  constructor(
    readonly authorizer: Authorizer,
    readonly path: string,
  ) {}

  check(verb: string): AuthzDecision {
    const q = { ...resourceFields(this.authorizer.user, verb), isResourceRequest: false, path: this.path };
    return new AuthzDecision(this.authorizer.session.lookup(q));
  }
}

export class GroupCheck {
  constructor(
    readonly authorizer: Authorizer,
    readonly group: string,
  ) {}
}

function resourceFields(user: AuthzUser, verb: string): AuthzQuery {
  return { user, verb, isResourceRequest: true, path: "", group: "", version: "*", resource: "", subresource: "", namespace: "", name: "", fieldSelector: "", labelSelector: "" };
}

export class ResourceCheck {
  constructor(
    readonly authorizer: Authorizer,
    readonly fields: Omit<AuthzQuery, "user" | "verb" | "isResourceRequest" | "path">,
  ) {}

  with(change: Partial<ResourceCheck["fields"]>): ResourceCheck {
    return new ResourceCheck(this.authorizer, { ...this.fields, ...change });
  }

  check(verb: string): AuthzDecision {
    return new AuthzDecision(this.authorizer.session.lookup({ ...resourceFields(this.authorizer.user, verb), ...this.fields }));
  }
}

/** An authorizer for `user`; `request` names the resource of the request under admission. */
export function newAuthorizer(session: AuthzSession, user: AuthzUser, request?: { group: string; version: string; resource: string; subresource: string; namespace: string; name: string }): Authorizer {
  if (!request) return new Authorizer(session, user);
  const rr = new ResourceCheck(new Authorizer(session, user), { ...request, fieldSelector: "", labelSelector: "" });
  return new Authorizer(session, user, rr);
}

function serviceAccount(a: Authorizer, namespace: string, name: string): Authorizer {
  if (isDNS1123Subdomain(name).length > 0) throw new CelEvaluationError("Invalid service account name");
  if (isDNS1123Label(namespace).length > 0) throw new CelEvaluationError("Invalid service account namespace");
  return new Authorizer(a.session, { username: `system:serviceaccount:${namespace}:${name}`, groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`] });
}

function nonEmpty(s: string, what: string): string {
  if (s.trim() === "") throw new CelEvaluationError(`${what} must not be empty`);
  return s;
}

/** Registers the authorizer types and functions. */
export function registerAuthz(env: Environment): Environment {
  const A = AUTHORIZER_TYPE;
  const R = RESOURCE_CHECK;
  return env
    .registerType(PATH_CHECK, PathCheck)
    .registerType(GROUP_CHECK, GroupCheck)
    .registerType(R, ResourceCheck)
    .registerType(DECISION, AuthzDecision)
    .registerType(A, { ctor: Authorizer, fields: { requestResource: R } })
    .registerFunction(`${A}.path(string): ${PATH_CHECK}`, (a: Authorizer, p: string) => new PathCheck(a, nonEmpty(p, "path")))
    .registerFunction(`${A}.group(string): ${GROUP_CHECK}`, (a: Authorizer, g: string) => new GroupCheck(a, g))
    .registerFunction(`${A}.serviceAccount(string, string): ${A}`, serviceAccount)
    .registerFunction(`${GROUP_CHECK}.resource(string): ${R}`, (g: GroupCheck, r: string) => new ResourceCheck(g.authorizer, { group: g.group, version: "*", resource: nonEmpty(r, "resource"), subresource: "", namespace: "", name: "", fieldSelector: "", labelSelector: "" }))
    .registerFunction(`${R}.subresource(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ subresource: s }))
    .registerFunction(`${R}.namespace(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ namespace: s }))
    .registerFunction(`${R}.name(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ name: s }))
    .registerFunction(`${R}.fieldSelector(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ fieldSelector: s }))
    .registerFunction(`${R}.labelSelector(string): ${R}`, (r: ResourceCheck, s: string) => r.with({ labelSelector: s }))
    .registerFunction(`${R}.check(string): ${DECISION}`, (r: ResourceCheck, verb: string) => r.check(verb))
    .registerFunction(`${PATH_CHECK}.check(string): ${DECISION}`, (p: PathCheck, verb: string) => p.check(verb))
    .registerFunction(`${DECISION}.allowed(): bool`, (d: AuthzDecision) => d.answer.decision === "Allow")
    .registerFunction(`${DECISION}.reason(): string`, (d: AuthzDecision) => d.answer.reason)
    .registerFunction(`${DECISION}.errored(): bool`, (d: AuthzDecision) => d.answer.error !== undefined)
    .registerFunction(`${DECISION}.error(): string`, (d: AuthzDecision) => d.answer.error ?? "");
}

/**
 * Runs `evaluate` until every authorizer check it makes has an answer: after a
 * run that left checks pending, they are resolved with `authorize` and the
 * evaluation runs again (at most `maxRounds` times; checks still pending then
 * keep their "no opinion" answer).
 */
export async function evaluateWithAuthorizer<T>(session: AuthzSession, evaluate: () => T | Promise<T>, authorize: (q: AuthzQuery) => Promise<AuthzAnswer>, maxRounds = 8): Promise<T> {
  let result = await evaluate();
  for (let round = 1; round < maxRounds && session.pending.length > 0; round++) {
    await session.resolve(authorize);
    result = await evaluate();
  }
  return result;
}
