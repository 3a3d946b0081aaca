/**
 * The authorizer chain of a replica. `buildAuthorizer(config, deps)` turns the
 * flags (or an AuthorizationConfiguration file) into one `authorize` function for
 * the request filter: the privileged group (`system:masters`) first, then the
 * configured authorizers in order; the first allow or deny wins; no opinion from
 * all is a 403 naming user, verb, resource and scope.
 *
 * With a configuration file the chain is rebuilt when the file changes and every
 * 60 s; a file that does not parse or validate keeps the previous chain, and the
 * failure is logged and reported by `reloadStatus()`. RBAC and Node state (watch
 * fed) is shared across reloads.
 */
import { watch as fsWatch, type FSWatcher } from "node:fs";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { readFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { Catalog } from "../registry/catalog.ts";
import type { RequestInfo } from "../endpoints/request-info.ts";
import { AbacAuthorizer } from "./abac.ts";
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, PrivilegedGroupsAuthorizer } from "./always.ts";
import { attributesFor, forbiddenError } from "./attributes.ts";
import { NodeGraphWatcher, type NodeGraph } from "./node-graph.ts";
import { NodeAuthorizer } from "./node.ts";
import {
  parseAuthorizationConfiguration,
  validateAuthorizationFlags,
  type AuthorizationConfiguration,
  type AuthorizationFlags,
  type AuthorizerConfig,
} from "./options.ts";
import { RbacAuthorizer } from "./rbac/authorizer.ts";
import type { RbacSource } from "./rbac/resolve.ts";
import { RegistryRbacSource } from "./rbac/source.ts";
import { NO_OPINION, isRuleResolver, type Attributes, type Authorizer, type Decision, type RuleResolver, type RulesResult, type UserInfo } from "./types.ts";
import { loadWebhookClientConfig, WebhookAuthorizer } from "./webhook.ts";

export const CONFIG_RELOAD_INTERVAL_MS = 60_000;

/** Runs authorizers in order: the first Allow or Deny decides; reasons of the others are kept. */
export class UnionAuthorizer implements Authorizer, RuleResolver {
  readonly name = "Union";

  constructor(readonly authorizers: readonly Authorizer[]) {}

  async authorize(attrs: Attributes): Promise<Decision> {
    const reasons: string[] = [];
    const errors: string[] = [];
    for (const a of this.authorizers) {
      const d = await a.authorize(attrs);
      if (d.decision !== "NoOpinion") return d;
      if (d.reason) reasons.push(d.reason);
      if (d.error) errors.push(d.error);
    }
    return NO_OPINION(reasons.join("\n"), errors.length > 0 ? errors.join("; ") : undefined);
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false, errors: [] };
    for (const a of this.authorizers) {
      if (!isRuleResolver(a)) {
        // Webhooks and the Node authorizer cannot enumerate what they allow.
        if (!(a instanceof PrivilegedGroupsAuthorizer)) out.incomplete = true;
        continue;
      }
      const r = a.rulesFor(user, namespace);
      out.resourceRules.push(...r.resourceRules);
      out.nonResourceRules.push(...r.nonResourceRules);
      out.incomplete ||= r.incomplete;
      out.errors.push(...r.errors);
    }
    return out;
  }
}

export interface AuthorizerDeps {
  profile: PlatformProfile;
  /** The replica's catalog: RBAC and Node state is watched through it. */
  catalog?: Catalog;
  /** An RBAC source to use instead of watching the catalog. */
  rbacSource?: RbacSource;
  /** A node graph to use instead of watching the catalog. */
  nodeGraph?: NodeGraph;
  /** `AuthorizeWithSelectors` gate (default true). */
  authorizeWithSelectors?: boolean;
  reloadIntervalMs?: number;
  now?: () => number;
  log?: LogFn;
}

export interface ReloadStatus {
  /** Successful (re)loads of the configuration file. */
  loads: number;
  lastLoadedAt?: number;
  /** The error of the latest failed reload, cleared by a successful one. */
  lastError?: string;
  failures: number;
}

export interface AuthorizationHandle {
  /** For `startReplica({ authorize })`: resolves to allow, throws a 403 StatusError to deny. */
  authorize(user: UserInfo, info: RequestInfo, req?: Request): Promise<void>;
  /** The current chain (privileged groups first), for reviews and admission. */
  readonly authorizer: Authorizer & RuleResolver;
  /** RBAC state when RBAC is configured (admission uses it for escalation checks). */
  readonly rbacSource?: RbacSource;
  readonly rbac?: RbacAuthorizer;
  /** Authorization attributes as this chain builds them. */
  attributes(user: UserInfo, info: RequestInfo): Attributes;
  reloadStatus(): ReloadStatus;
  /** Re-reads the configuration file now; false when it was rejected. */
  reload(): Promise<boolean>;
  close(): void;
}

/** Builds the chain (validating flags: throws the start-up error) and starts what it needs. */
export async function buildAuthorizer(config: AuthorizationFlags, deps: AuthorizerDeps): Promise<AuthorizationHandle> {
  validateAuthorizationFlags(config);
  const log = deps.log ?? (() => {});
  const stops: Array<() => void> = [];

  let rbacSource = deps.rbacSource;
  let rbac: RbacAuthorizer | undefined;
  const needRbac = async (): Promise<RbacAuthorizer> => {
    if (rbac) return rbac;
    if (!rbacSource) {
      if (!deps.catalog) throw new Error("RBAC authorization needs the replica's catalog");
      const src = new RegistryRbacSource(deps.catalog, deps.profile, (msg, fields) => log("warn", msg, fields));
      await src.start();
      stops.push(() => src.stop());
      rbacSource = src;
    }
    rbac = new RbacAuthorizer(rbacSource);
    return rbac;
  };
  let node: NodeAuthorizer | undefined;
  const needNode = async (): Promise<NodeAuthorizer> => {
    if (node) return node;
    let graph = deps.nodeGraph;
    if (!graph) {
      if (!deps.catalog) throw new Error("Node authorization needs the replica's catalog");
      const w = new NodeGraphWatcher(deps.catalog, deps.profile, (msg, fields) => log("warn", msg, fields));
      await w.start();
      stops.push(() => w.stop());
      graph = w.graph;
    }
    node = new NodeAuthorizer(graph, deps.profile);
    return node;
  };

  const fromFlags = async (): Promise<Authorizer[]> => {
    const out: Authorizer[] = [];
    for (const mode of config.modes ?? ["AlwaysAllow"]) {
      switch (mode) {
        case "AlwaysAllow":
          out.push(new AlwaysAllowAuthorizer());
          break;
        case "AlwaysDeny":
          out.push(new AlwaysDenyAuthorizer());
          break;
        case "ABAC":
          out.push(AbacAuthorizer.fromFile(config.policyFile ?? "", deps.profile));
          break;
        case "RBAC":
          out.push(await needRbac());
          break;
        case "Node":
          out.push(await needNode());
          break;
        case "Webhook":
          out.push(
            new WebhookAuthorizer({
              name: "webhook",
              profile: deps.profile,
              client: loadWebhookClientConfig(config.webhookConfigFile ?? ""),
              version: config.webhookVersion ?? "v1beta1",
              authorizedTTLMs: config.webhookAuthorizedTTLMs,
              unauthorizedTTLMs: config.webhookUnauthorizedTTLMs,
              failurePolicy: "NoOpinion",
              now: deps.now,
            }),
          );
          break;
      }
    }
    return out;
  };

  const fromFile = async (cfg: AuthorizationConfiguration, baseDir: string): Promise<Authorizer[]> => {
    const out: Authorizer[] = [];
    for (const a of cfg.authorizers) out.push(await fromFileEntry(a, baseDir));
    return out;
  };
  const fromFileEntry = async (a: AuthorizerConfig, baseDir: string): Promise<Authorizer> => {
    switch (a.type) {
      case "AlwaysAllow":
        return new AlwaysAllowAuthorizer();
      case "AlwaysDeny":
        return new AlwaysDenyAuthorizer();
      case "RBAC":
        return needRbac();
      case "Node":
        return needNode();
      case "Webhook": {
        const w = a.webhook;
        if (!w) throw new Error(`authorizer ${a.name}: missing webhook configuration`);
        if (w.connectionInfo.type !== "KubeConfigFile") throw new Error(`authorizer ${a.name}: connectionInfo.type InClusterConfig is not supported by this server`);
        return new WebhookAuthorizer({
          name: a.name,
          profile: deps.profile,
          client: loadWebhookClientConfig(resolve(baseDir, w.connectionInfo.kubeConfigFile)),
          version: w.subjectAccessReviewVersion,
          authorizedTTLMs: w.authorizedTTLMs,
          unauthorizedTTLMs: w.unauthorizedTTLMs,
          timeoutMs: w.timeoutMs,
          failurePolicy: w.failurePolicy,
          matchConditions: w.matchConditions,
          now: deps.now,
        });
      }
    }
  };

  const privileged = new PrivilegedGroupsAuthorizer();
  let chain = new UnionAuthorizer([]);
  const status: ReloadStatus = { loads: 0, failures: 0 };
  let lastText: string | undefined;

  const configPath = config.configFile !== undefined ? resolve(config.configFile) : undefined;
  const loadFile = async (force: boolean): Promise<boolean> => {
    if (!configPath) return true;
    let text: string;
    try {
      text = await readFile(configPath, "utf8");
    } catch (err) {
      throw new Error(`reading authorization configuration ${configPath}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    if (!force && text === lastText) return true;
    const parsed = parseAuthorizationConfiguration(text, deps.profile);
    const authorizers = await fromFile(parsed, dirname(configPath));
    chain = new UnionAuthorizer([privileged, ...authorizers]);
    lastText = text;
    status.loads++;
    status.lastLoadedAt = (deps.now ?? Date.now)();
    delete status.lastError;
    return true;
  };
  const reload = async (force = false): Promise<boolean> => {
    try {
      const ok = await loadFile(force);
      if (ok && status.loads > 0) log("info", "authorization configuration loaded", { path: configPath, loads: status.loads });
      return ok;
    } catch (err) {
      status.failures++;
      status.lastError = err instanceof Error ? err.message : String(err);
      log("error", "authorization configuration reload failed; keeping the previous authorizers", { path: configPath, error: status.lastError });
      return false;
    }
  };

  if (configPath) {
    // The first load must succeed: a broken file at start is a start-up error.
    await loadFile(true);
    const interval = setInterval(() => void reload(), deps.reloadIntervalMs ?? CONFIG_RELOAD_INTERVAL_MS);
    interval.unref();
    stops.push(() => clearInterval(interval));
    let watcher: FSWatcher | undefined;
    let debounce: NodeJS.Timeout | undefined;
    try {
      // Watch the directory: editors and config maps replace files rather than write them.
      watcher = fsWatch(dirname(configPath), (_event, file) => {
        if (file !== null && file !== basename(configPath)) return;
        if (debounce) clearTimeout(debounce);
        debounce = setTimeout(() => void reload(), 50);
        debounce.unref();
      });
      watcher.on("error", (err) => log("warn", "authorization configuration watch failed; relying on periodic reload", { error: String(err) }));
      watcher.unref();
    } catch (err) {
      log("warn", "authorization configuration watch failed; relying on periodic reload", { error: String(err) });
    }
    stops.push(() => {
      if (debounce) clearTimeout(debounce);
      watcher?.close();
    });
  } else {
    chain = new UnionAuthorizer([privileged, ...(await fromFlags())]);
  }

  const current: Authorizer & RuleResolver = {
    name: "Chain",
    authorize: (attrs) => chain.authorize(attrs),
    rulesFor: (user, namespace) => chain.rulesFor(user, namespace),
  };
  const attributes = (user: UserInfo, info: RequestInfo) => attributesFor(user, info, { authorizeWithSelectors: deps.authorizeWithSelectors });

  return {
    authorizer: current,
    get rbacSource() {
      return rbacSource;
    },
    get rbac() {
      return rbac;
    },
    attributes,
    async authorize(user, info) {
      const attrs = attributes(user, info);
      const d = await chain.authorize(attrs);
      if (d.decision === "Allow") return;
      throw forbiddenError(attrs, d.reason);
    },
    reloadStatus: () => ({ ...status }),
    reload: () => reload(true),
    close() {
      for (const s of stops.reverse()) s();
    },
  };
}
