/**
 * Authentication, authorization and the admission check that depends on them (RBAC
 * escalation), built for one replica from the authn and authz flags. The chain needs
 * the catalog, so the pieces are bound in two steps: `create` before the catalog,
 * `attach` once it exists (it adds the escalation check to the admission chain).
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { notFound, serviceUnavailable } from "../../../shared/api/status.ts";
import { buildAuthenticator, catalogObjectGetter, type BuiltAuthentication } from "../authn/build.ts";
import { tokenRequestSpec } from "../authn/token-request-spec.ts";
import type { AuthenticationOptions } from "../authn/options.ts";
import { buildAuthorizer, type AuthorizationHandle } from "../authz/chain.ts";
import type { AuthorizationFlags } from "../authz/options.ts";
import { rbacAdmission } from "../authz/rbac/admission.ts";
import { reconcile, rbacRegistries } from "../authz/reconcile.ts";
import * as authzReviews from "../authz/reviews.ts";
import type { Catalog } from "../registry/catalog.ts";
import type { AdmissionChain } from "../admission/chain.ts";
import type { AuthorizeCheck, AuthorizeDecision } from "../admission/interfaces.ts";
import type { JsonObject } from "../storage/object.ts";
import type { UserInfo } from "../endpoints/scope.ts";
import type { Authenticate, Authorize, Impersonate } from "./app.ts";
import { impersonationAuthorizer } from "./filters/with-impersonation.ts";
import { catalogSecretLabelWriter } from "./legacy-token-tracking.ts";
import type { VirtualHandler } from "../endpoints/virtual.ts";

export interface SecurityOptions {
  authentication: AuthenticationOptions;
  authorization: AuthorizationFlags;
}

export class Security {
  private authz: AuthorizationHandle | undefined;

  private constructor(
    private readonly profile: PlatformProfile,
    private readonly opts: SecurityOptions,
    readonly authn: BuiltAuthentication,
    private readonly catalog: () => Catalog | undefined,
  ) {}

  static async create(profile: PlatformProfile, opts: SecurityOptions, catalog: () => Catalog | undefined, log?: LogFn, metrics?: MetricsRegistry): Promise<Security> {
    const authn = await buildAuthenticator(opts.authentication, {
      profile,
      metrics,
      getObject: catalogObjectGetter(catalog),
      writeSecretLabels: catalogSecretLabelWriter(catalog),
      authorizationAlwaysAllow: (opts.authorization.modes ?? ["AlwaysAllow"]).every((m) => m === "AlwaysAllow") && !opts.authorization.configFile,
      log: log ? (level: string, msg: string, fields?: Record<string, unknown>) => log(level === "error" ? "error" : level === "warn" ? "warn" : "info", msg, fields ?? {}) : undefined,
    } as Parameters<typeof buildAuthenticator>[1]);
    return new Security(profile, opts, authn, catalog);
  }

  /** Starts what needs the catalog: default RBAC policy, the authorizer chain, the escalation check (ClusterRole aggregation is the controller manager's). */
  async attach(catalog: Catalog, admission: AdmissionChain, log?: LogFn): Promise<void> {
    const modes = this.opts.authorization.modes ?? (this.opts.authorization.configFile ? [] : ["AlwaysAllow"]);
    if (modes.includes("RBAC") || this.opts.authorization.configFile) {
      await reconcile(rbacRegistries(catalog, this.profile), this.profile);
    }
    this.authz = await buildAuthorizer(this.opts.authorization, { profile: this.profile, catalog, log });
    const source = this.authz.rbacSource;
    if (source) admission.addInternal(rbacAdmission({ profile: this.profile, authorizer: this.authz.authorizer, source, catalog }));
  }

  /** The authorizer's decision for admission plugins (false until the chain exists). */
  readonly allowed: AuthorizeCheck = async (user, attrs) => {
    if (!this.authz) return false;
    const d = await this.authz.authorizer.authorize({
      user,
      verb: attrs.verb,
      isResourceRequest: true,
      path: "",
      namespace: attrs.namespace ?? "",
      apiGroup: attrs.group,
      apiVersion: attrs.version ?? "*",
      resource: attrs.resource,
      subresource: attrs.subresource ?? "",
      name: attrs.name ?? "",
    });
    return d.decision === "Allow";
  };

  /** The authorizer's full decision for policies' `authorizer` variable (no opinion until the chain exists). */
  readonly decide: AuthorizeDecision = async (user, attrs) => {
    if (!this.authz) return { decision: "NoOpinion", reason: "" };
    const { verb, isResourceRequest, path, group, version, resource, subresource, namespace, name } = attrs;
    const d = await this.authz.authorizer.authorize({ user, verb, isResourceRequest, path, namespace, apiGroup: group, apiVersion: version, resource, subresource, name });
    return d.error === undefined ? { decision: d.decision, reason: d.reason } : { decision: d.decision, reason: d.reason, error: d.error };
  };

  /** Authentication only: who sent the request (the anonymous user, or a thrown 401). */
  readonly authenticate: Authenticate = (req, incoming, url) => this.authn.authenticate(req, incoming, url);

  /** Impersonation, each value checked with the authorizer chain (400/403 on a bad or refused request). */
  readonly impersonate: Impersonate = (user, req, incoming) => this.authn.impersonation(user, req, incoming, this.impersonationCheck);

  /** Each impersonated value is checked with the same authorizer as requests. */
  private readonly impersonationCheck = impersonationAuthorizer((user, info, req) => this.authorize(user, info, req));

  /** Synchronous when the authorizers answer synchronously (with-authorization then takes no turn). */
  readonly authorize: Authorize = (user, info, req) => {
    if (!this.authz) throw serviceUnavailable("the authorizer is starting; retry shortly", 1);
    return this.authz.authorize(user, info, req);
  };

  /** The review kinds and the TokenRequest subresource, keyed `<group>/<resource>[/<subresource>]`. */
  virtualHandlers(): Map<string, VirtualHandler> {
    const p = this.profile;
    const deps = () => ({ authorizer: (this.authz as AuthorizationHandle).authorizer, group: p.group("authorization") });
    const handlers = new Map<string, VirtualHandler>();
    const authn = p.group("authentication");
    const authz = p.group("authorization");
    handlers.set(`${authn}/tokenreviews`, (body, user) => this.authn.reviews.tokenReview(body, user));
    handlers.set(`${authn}/selfsubjectreviews`, (body, user) => this.authn.reviews.selfSubjectReview(body, user));
    handlers.set(`${authz}/subjectaccessreviews`, (body, user) => authzReviews.subjectAccessReview(body, user, deps()));
    handlers.set(`${authz}/selfsubjectaccessreviews`, (body, user) => authzReviews.selfSubjectAccessReview(body, user, deps()));
    handlers.set(`${authz}/selfsubjectrulesreviews`, (body, user) => authzReviews.selfSubjectRulesReview(body, user, deps()));
    handlers.set(`${authz}/localsubjectaccessreviews`, (body, user, namespace) => authzReviews.localSubjectAccessReview(body, user, namespace ?? "", deps()));
    handlers.set("/serviceaccounts/token", (body, _user, namespace, name, warn) => this.tokenRequest(body, namespace ?? "", name ?? "", warn));
    return handlers;
  }

  private async tokenRequest(body: JsonObject, namespace: string, name: string, warn?: (text: string) => void): Promise<JsonObject> {
    const sa = this.authn.serviceAccountTokens;
    const catalog = this.catalog();
    if (!sa || !catalog) throw serviceUnavailable("service account tokens are not configured: no signing key (--service-account-signing-key-file)");
    const accounts = catalog.lookup("", "v1", "serviceaccounts");
    if (!accounts) throw notFound("serviceaccounts", name);
    const account = await accounts.registry.get(namespace, name, undefined);
    const spec = tokenRequestSpec(this.profile, body, sa.maxExpirationSeconds, warn);
    const audiences = spec.audiences && spec.audiences.length > 0 ? spec.audiences : this.authn.apiAudiences;
    const ref = spec.boundObjectRef;
    const bound = ref?.name ? { name: ref.name, uid: ref.uid ?? "" } : undefined;
    const minted = await sa.mint({
      serviceAccount: { namespace, name, uid: String((account.metadata as { uid?: string }).uid ?? "") },
      audiences,
      expirationSeconds: spec.expirationSeconds ?? 3600,
      pod: ref?.kind === "Pod" ? bound : undefined,
      secret: ref?.kind === "Secret" ? bound : undefined,
      node: ref?.kind === "Node" ? bound : undefined,
    } as Parameters<typeof sa.mint>[0]);
    return {
      apiVersion: this.profile.apiVersion("authentication", "v1"),
      kind: "TokenRequest",
      metadata: { name, namespace, creationTimestamp: null },
      spec: { audiences, expirationSeconds: spec.expirationSeconds ?? 3600, boundObjectRef: ref ?? null },
      status: { token: minted.token, expirationTimestamp: minted.expirationTimestamp },
    };
  }

  close(): void {
    this.authz?.close();
    void this.authn.close?.();
  }
}

export type { UserInfo };
